import { Alert, Box, Card, CardContent, Chip, Grid, Link as MuiLink, List, ListItem, Stack, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Title, useGetList } from 'react-admin';
import { Link } from 'react-router-dom';
import { whoAmI } from '../api/authProvider';
import type { Me } from '../api/permissions';
import { decidesRequests } from '../api/me';
import { useFavorites } from '../common/FavoriteButton';
import { ValueChip } from '../common/StatusChip';

/** The statuses a requester follows, in the order a request moves through them. */
const REQUEST_STATUSES = ['approval_pending', 'rejected', 'ready', 'queued', 'in_progress', 'done', 'error'] as const;

/** The caller's own requests (resources they created): how many in each status, and the latest few. */
function MyRequests({ me }: { readonly me: Me }) {
  const filter = { creatorId: me.id };
  const { data, total, isPending, error } = useGetList<{ id: string; name: string; status: string }>('resources', {
    pagination: { page: 1, perPage: 100 },
    sort: { field: 'createdAt', order: 'DESC' },
    filter,
  });
  const counts = new Map<string, number>();
  for (const request of data ?? []) counts.set(request.status, (counts.get(request.status) ?? 0) + 1);
  return (
    <Card variant="outlined" component="section" aria-labelledby="my-requests-heading">
      <CardContent>
        <Typography id="my-requests-heading" variant="h6" component="h2">
          My requests{total === undefined ? '' : ` (${total})`}
        </Typography>
        {error && <Typography color="error">Your requests could not be loaded.</Typography>}
        {isPending && <Typography color="text.secondary">Loading…</Typography>}
        {!isPending && !error && total === 0 && (
          <Typography color="text.secondary">
            None yet:{' '}
            <MuiLink component={Link} to="/resources/create">
              request a resource
            </MuiLink>
            .
          </Typography>
        )}
        {counts.size > 0 && (
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', my: 1 }} data-testid="my-request-counts">
            {REQUEST_STATUSES.filter((status) => counts.has(status)).map((status) => (
              <MuiLink
                key={status}
                component={Link}
                to={`/resources?filter=${encodeURIComponent(JSON.stringify({ ...filter, status }))}`}
                underline="none"
              >
                <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
                  <Typography component="span">{counts.get(status)}</Typography>
                  <ValueChip value={status} />
                </Stack>
              </MuiLink>
            ))}
          </Stack>
        )}
        <List dense disablePadding>
          {(data ?? []).slice(0, 5).map((request) => (
            <ListItem key={request.id} disableGutters>
              <MuiLink component={Link} to={`/resources/${request.id}/show`} sx={{ mr: 1 }}>
                {request.name}
              </MuiLink>
              <ValueChip value={request.status} />
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}

/** The caller's favorites, newest first, each a link to its page. */
function Favorites() {
  const favorites = useFavorites();
  return (
    <Card variant="outlined" component="section" aria-labelledby="favorites-heading">
      <CardContent>
        <Typography id="favorites-heading" variant="h6" component="h2">
          Favorites{favorites ? ` (${favorites.length})` : ''}
        </Typography>
        {favorites?.length === 0 && <Typography color="text.secondary">Star a page to find it here.</Typography>}
        <List dense disablePadding>
          {(favorites ?? []).slice(0, 10).map((favorite) => (
            <ListItem key={favorite.entityId} disableGutters>
              <MuiLink component={Link} to={favorite.link} sx={{ mr: 1 }}>
                {favorite.name}
              </MuiLink>
              <Typography variant="caption" color="text.secondary">
                {favorite.entityType.replaceAll('_', ' ')}
              </Typography>
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}

function Count({
  resource,
  label,
  filter,
  to,
}: {
  readonly resource: string;
  readonly label: string;
  readonly filter?: Record<string, unknown>;
  readonly to?: string;
}) {
  const { total, isPending, error } = useGetList(resource, { pagination: { page: 1, perPage: 1 }, filter });
  const query = filter ? `?filter=${encodeURIComponent(JSON.stringify(filter))}` : '';
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h4" component="p">
          {error ? '—' : isPending ? '…' : total}
        </Typography>
        <MuiLink component={Link} to={to ?? `/${resource}${query}`}>
          {label}
        </MuiLink>
      </CardContent>
    </Card>
  );
}

/** Home: who you are, what you may do, and what waits for you. */
export function Dashboard() {
  const [me, setMe] = useState<Me>();
  useEffect(() => {
    void whoAmI().then(setMe, () => undefined);
  }, []);
  const approver = decidesRequests(me);
  return (
    <Box sx={{ p: 2 }}>
      <Title title="infraledger" />
      <Typography variant="h5" component="h1" gutterBottom>
        Welcome{me ? `, ${me.name}` : ''}
      </Typography>
      {me && (
        <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center' }}>
          <Typography variant="body2">Roles:</Typography>
          {me.roles.map((r) => (
            <Chip key={r} size="small" label={r} data-testid="role" />
          ))}
          {me.kind === 'guest' && <Chip size="small" color="warning" label="guest (insecure, development only)" />}
        </Stack>
      )}
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Count
            resource={approver ? 'approvals' : 'resources'}
            label={approver ? 'Waiting for my approval' : 'Resources'}
            to={approver ? '/approvals' : undefined}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Count resource="templates" label="Templates" />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Count resource="executors" label="Executors" />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Count resource="integrations" label="Integrations" />
        </Grid>
      </Grid>
      {me && (
        <Grid container spacing={2} sx={{ mt: 1 }}>
          <Grid size={{ xs: 12, md: 6 }}>
            <MyRequests me={me} />
          </Grid>
          <Grid size={{ xs: 12, md: 6 }}>
            <Favorites />
          </Grid>
        </Grid>
      )}
      <Alert severity="info" sx={{ mt: 3 }}>
        Request infrastructure under{' '}
        <MuiLink component={Link} to="/resources/create">
          Resources → Create
        </MuiLink>
        ; requests wait for a platform engineer's approval. Machines use{' '}
        <MuiLink component={Link} to="/personal_access_tokens">
          personal access tokens
        </MuiLink>{' '}
        or service accounts with the REST API (<MuiLink href="/api/docs/">docs</MuiLink>) or GraphQL (
        <MuiLink href="/api/graphql">GraphiQL</MuiLink>).
      </Alert>
    </Box>
  );
}
