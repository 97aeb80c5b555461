import { Alert, Box, Card, CardContent, Chip, Grid, Link as MuiLink, Stack, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Title, useGetList } from 'react-admin';
import { Link } from 'react-router-dom';
import { whoAmI } from '../api/authProvider';
import type { Me } from '../api/permissions';
import { decidesRequests } from '../api/me';

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
