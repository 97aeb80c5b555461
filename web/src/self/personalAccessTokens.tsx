import DeleteIcon from '@mui/icons-material/Delete';
import {
  Alert,
  Box,
  Button as MuiButton,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import { useState, type SyntheticEvent } from 'react';
import {
  Button,
  Confirm,
  Datagrid,
  DateField,
  FunctionField,
  List,
  TextField,
  useCreate,
  useDelete,
  useNotify,
  useRecordContext,
  useRefresh,
} from 'react-admin';
import { messageOf, problemOf } from '../api/problem';
import { CopyButton } from '../common/CopyButton';
import { ValueChip } from '../common/StatusChip';

interface CreatedToken {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly expiresAt: string;
}

/** The secret, shown once right after creation, with a copy button. */
function TokenDialog({ created, onClose }: { readonly created: CreatedToken | undefined; readonly onClose: () => void }) {
  return (
    <Dialog open={created !== undefined} onClose={onClose} aria-labelledby="token-dialog-title" maxWidth="md">
      <DialogTitle id="token-dialog-title">Token “{created?.name}” created</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          Copy it now: it is shown only once and cannot be retrieved later.
        </Alert>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Box
            component="code"
            data-testid="new-token"
            sx={{ p: 1, bgcolor: 'grey.100', borderRadius: 1, wordBreak: 'break-all', fontSize: 14 }}
          >
            {created?.token}
          </Box>
          {created && <CopyButton value={created.token} label="Copy token" />}
        </Stack>
        <Typography variant="body2" sx={{ mt: 2 }}>
          Use it as <code>Authorization: Bearer &lt;token&gt;</code>. It expires{' '}
          {created ? new Date(created.expiresAt).toLocaleString() : ''}.
        </Typography>
      </DialogContent>
      <DialogActions>
        <MuiButton onClick={onClose} autoFocus>
          Done
        </MuiButton>
      </DialogActions>
    </Dialog>
  );
}

function NewTokenForm({ onCreated }: { readonly onCreated: (token: CreatedToken) => void }) {
  const [create, { isPending }] = useCreate();
  const [name, setName] = useState('');
  const [days, setDays] = useState('30');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setErrors({});
    setError(undefined);
    void create(
      'personal_access_tokens',
      { data: { name, expiresInDays: Number(days) } },
      {
        onSuccess: (data) => {
          setName('');
          onCreated(data as CreatedToken);
        },
        onError: (e: unknown) => {
          const problem = problemOf(e);
          setErrors(Object.fromEntries((problem?.errors ?? []).map((i) => [i.field, i.message])));
          setError(messageOf(e));
        },
      },
    );
  };
  return (
    <Card sx={{ mb: 2 }}>
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          New token
        </Typography>
        <Box component="form" onSubmit={submit} noValidate>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
            <MuiTextField
              label="Name"
              name="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              error={'name' in errors}
              helperText={errors.name ?? 'What it is for, e.g. "laptop"'}
            />
            <MuiTextField
              label="Expires in (days)"
              name="expiresInDays"
              type="number"
              value={days}
              onChange={(e) => setDays(e.target.value)}
              required
              error={'expiresInDays' in errors}
              helperText={errors.expiresInDays ?? 'Mandatory; the provider caps it'}
              slotProps={{ htmlInput: { min: 1 } }}
            />
            <MuiButton type="submit" variant="contained" disabled={isPending || name.trim() === ''} sx={{ mt: 1 }}>
              Create token
            </MuiButton>
          </Stack>
          {error && (
            <Alert severity="error" role="alert" sx={{ mt: 2 }}>
              {error}
            </Alert>
          )}
        </Box>
      </CardContent>
    </Card>
  );
}

function RevokeButton() {
  const record = useRecordContext();
  const [remove, { isPending }] = useDelete();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  if (!record || record.revokedAt) return null;
  return (
    <>
      <Button label="Revoke" color="error" onClick={() => setOpen(true)}>
        <DeleteIcon />
      </Button>
      <Confirm
        isOpen={open}
        loading={isPending}
        title={`Revoke ${String(record.name)}?`}
        content="Anything still using this token loses access at once."
        onClose={() => setOpen(false)}
        onConfirm={() => {
          void remove(
            'personal_access_tokens',
            { id: record.id, previousData: record },
            {
              mutationMode: 'pessimistic',
              onSuccess: () => {
                notify('Token revoked', { type: 'success' });
                refresh();
              },
              onError: (e: unknown) => notify(messageOf(e), { type: 'error' }),
              onSettled: () => setOpen(false),
            },
          );
        }}
      />
    </>
  );
}

const stateOf = (r: { revokedAt: string | null; expiresAt: string }): string =>
  r.revokedAt ? 'revoked' : Date.parse(r.expiresAt) < Date.now() ? 'expired' : 'active';

/** Self-service personal access tokens: create (the secret shown once), list, revoke. */
export function PersonalAccessTokenList() {
  const [created, setCreated] = useState<CreatedToken>();
  const refresh = useRefresh();
  return (
    <>
      <List
        resource="personal_access_tokens"
        title="Personal access tokens"
        actions={false}
        exporter={false}
        sort={{ field: 'createdAt', order: 'DESC' }}
        empty={false}
        aside={undefined}
      >
        <Box sx={{ p: 2, pb: 0 }}>
          <NewTokenForm
            onCreated={(token) => {
              setCreated(token);
              refresh();
            }}
          />
        </Box>
        <Datagrid
          bulkActionButtons={false}
          rowClick={false}
          data-testid="tokens"
          empty={<Typography sx={{ p: 2 }}>No tokens yet.</Typography>}
        >
          <TextField source="name" sortable={false} />
          <DateField source="createdAt" showTime sortable={false} />
          <DateField source="expiresAt" showTime sortable={false} />
          <DateField source="lastUsedAt" label="Last used" showTime sortable={false} emptyText="never" />
          <FunctionField label="State" render={(r: { revokedAt: string | null; expiresAt: string }) => <ValueChip value={stateOf(r)} />} />
          <RevokeButton />
        </Datagrid>
      </List>
      <TokenDialog created={created} onClose={() => setCreated(undefined)} />
    </>
  );
}
