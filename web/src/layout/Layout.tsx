import GroupsIcon from '@mui/icons-material/Groups';
import { decidesRequests, useMe } from '../api/me';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AssignmentTurnedInIcon from '@mui/icons-material/AssignmentTurnedIn';
import ApiIcon from '@mui/icons-material/Api';
import CloudIcon from '@mui/icons-material/Cloud';
import CodeIcon from '@mui/icons-material/Code';
import DnsIcon from '@mui/icons-material/Dns';
import ExtensionIcon from '@mui/icons-material/Extension';
import HistoryIcon from '@mui/icons-material/History';
import LockIcon from '@mui/icons-material/Lock';
import PeopleIcon from '@mui/icons-material/People';
import WebhookIcon from '@mui/icons-material/Webhook';
import SettingsInputComponentIcon from '@mui/icons-material/SettingsInputComponent';
import StorageIcon from '@mui/icons-material/Storage';
import TokenIcon from '@mui/icons-material/Token';
import ViewQuiltIcon from '@mui/icons-material/ViewQuilt';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { Box, Button, Chip, Divider, ListSubheader, MenuItem, ListItemIcon, ListItemText } from '@mui/material';
import type { ReactNode } from 'react';
import {
  AppBar,
  Layout as RaLayout,
  Logout,
  Menu,
  TitlePortal,
  UserMenu,
  useGetIdentity,
  useGetList,
  usePermissions,
  useSidebarState,
  useUserMenu,
  type LayoutProps,
} from 'react-admin';
import { Link } from 'react-router-dom';
import { useLiveUpdates } from '../api/live';
import { allows } from '../api/permissions';
import { SearchBox } from './SearchBox';

function TokensMenuItem() {
  const menu = useUserMenu();
  return (
    <MenuItem component={Link} to="/personal_access_tokens" onClick={() => menu?.onClose()}>
      <ListItemIcon>
        <TokenIcon fontSize="small" />
      </ListItemIcon>
      <ListItemText>Personal access tokens</ListItemText>
    </MenuItem>
  );
}

function InfraledgerAppBar() {
  // The button shows the user's name: its accessible name must contain it (axe: label-content-name-mismatch).
  const { identity } = useGetIdentity();
  return (
    <AppBar
      userMenu={
        <UserMenu label={identity?.fullName ? `${identity.fullName}, profile` : 'Profile'}>
          <TokensMenuItem />
          <Logout />
        </UserMenu>
      }
    >
      {/* The page's title is its main heading (each page sets it with <Title>). */}
      <TitlePortal component="h1" variant="h6" />
      <SearchBox />
      {/* GraphiQL is a page of the service itself (served under /api), not of this app. */}
      <Button color="inherit" href="/api/graphql" startIcon={<ApiIcon />} sx={{ mr: 1 }}>
        GraphiQL
      </Button>
      <Button color="inherit" href="/api/docs/" sx={{ mr: 1 }}>
        REST docs
      </Button>
    </AppBar>
  );
}

function Section({ children }: { readonly children: ReactNode }) {
  const [open] = useSidebarState();
  if (!open) return <Divider />;
  return (
    <ListSubheader component="div" sx={{ lineHeight: '32px', bgcolor: 'transparent' }}>
      {children}
    </ListSubheader>
  );
}

/** "Waiting for my approval" with how many wait (GET /api/approvals' total), its label wrapping rather than cut off. */
function ApprovalsItem() {
  const { total } = useGetList('approvals', { pagination: { page: 1, perPage: 1 } });
  return (
    <Menu.Item
      to="/approvals"
      primaryText={
        <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1, whiteSpace: 'normal' }}>
          Waiting for my approval
          {total !== undefined && total > 0 && <Chip size="small" color="warning" label={total} aria-label={`${total} waiting`} />}
        </Box>
      }
      leftIcon={<AssignmentTurnedInIcon />}
      sx={{ whiteSpace: 'normal' }}
    />
  );
}

/** The catalog first, then self-service and administration; react-admin hides what the caller may not list. */
function InfraledgerMenu() {
  const { permissions } = usePermissions<readonly string[]>();
  const me = useMe();
  const administrator = ['auth_provider', 'user', 'audit_log', 'webhook'].some((r) => allows(permissions, r, 'read'));
  return (
    <Menu>
      <Menu.DashboardItem />
      {decidesRequests(me) && <ApprovalsItem />}
      <Section>Catalog</Section>
      <Menu.ResourceItem name="resources" leftIcon={<CloudIcon />} />
      <Menu.ResourceItem name="templates" leftIcon={<ViewQuiltIcon />} />
      <Menu.ResourceItem name="source_codes" leftIcon={<CodeIcon />} />
      <Menu.ResourceItem name="source_code_versions" leftIcon={<AccountTreeIcon />} />
      <Menu.ResourceItem name="executors" leftIcon={<DnsIcon />} />
      <Menu.ResourceItem name="storages" leftIcon={<StorageIcon />} />
      <Menu.ResourceItem name="integrations" leftIcon={<ExtensionIcon />} />
      <Menu.ResourceItem name="secrets" leftIcon={<LockIcon />} />
      <Menu.ResourceItem name="workspaces" leftIcon={<WorkspacesIcon />} />
      <Menu.ResourceItem name="teams" leftIcon={<GroupsIcon />} />
      <Section>You</Section>
      <Menu.Item to="/personal_access_tokens" primaryText="Access tokens" leftIcon={<TokenIcon />} />
      {administrator && <Section>Administration</Section>}
      <Menu.ResourceItem name="auth_providers" leftIcon={<SettingsInputComponentIcon />} />
      <Menu.ResourceItem name="webhooks" leftIcon={<WebhookIcon />} />
      <Menu.ResourceItem name="users" leftIcon={<PeopleIcon />} />
      <Menu.ResourceItem name="audit_log" leftIcon={<HistoryIcon />} />
    </Menu>
  );
}

/** react-admin's layout with the app bar and menu above, kept live by the service's changes. */
export function Layout({ children }: LayoutProps) {
  useLiveUpdates();
  return (
    <RaLayout appBar={InfraledgerAppBar} menu={InfraledgerMenu}>
      {children}
    </RaLayout>
  );
}
