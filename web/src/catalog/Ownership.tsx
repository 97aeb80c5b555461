import { Box, Chip, MenuItem, Select, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { AutocompleteInput, Button, ReferenceInput, useNotify, useRecordContext, useResourceContext, useGetList } from 'react-admin';
import { accessKey, useEntityAccess, type EntityAccess } from '../api/access';
import { api } from '../api/client';
import { messageOf } from '../api/problem';
import { Item } from '../common/Item';

/** Read by screen readers, not shown (an empty header cell would say nothing). */
const HIDDEN = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

/** The owning team picker of a create or edit form (empty: no team owns it). */
export function OwnerInput() {
  return (
    <ReferenceInput source="ownerId" reference="teams" filter={{ status: 'enabled' }} sort={{ field: 'name', order: 'ASC' }}>
      <AutocompleteInput
        label="Owner (team)"
        optionText="name"
        filterToQuery={(q: string) => (q ? { q } : {})}
        helperText="Its members change it, its leads administer it and approve its requests. Left empty, your only team owns it."
        fullWidth
      />
    </ReferenceInput>
  );
}

/** Grants a level on the entity to a team (leads and administrators of the entity only). */
function GrantForm({ resource, id, onDone }: { readonly resource: string; readonly id: string; readonly onDone: () => void }) {
  const { data: teams } = useGetList<{ id: string; name: string }>('teams', {
    pagination: { page: 1, perPage: 200 },
    sort: { field: 'name', order: 'ASC' },
  });
  const [team, setTeam] = useState('');
  const [level, setLevel] = useState('read');
  const notify = useNotify();
  const grant = () =>
    api(`/api/${resource}/${encodeURIComponent(id)}/grants`, { method: 'PUT', body: { subjectType: 'team', subjectId: team, level } })
      .then(() => {
        notify('Granted', { type: 'success' });
        onDone();
      })
      .catch((error: unknown) => notify(messageOf(error), { type: 'error' }));
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mt: 1 }}>
      <Select
        size="small"
        value={team}
        displayEmpty
        onChange={(event) => setTeam(event.target.value)}
        inputProps={{ 'aria-label': 'Team' }}
        sx={{ minWidth: 200 }}
      >
        <MenuItem value="">
          <em>Team…</em>
        </MenuItem>
        {(teams ?? []).map((t) => (
          <MenuItem key={t.id} value={t.id}>
            {t.name}
          </MenuItem>
        ))}
      </Select>
      <Select size="small" value={level} onChange={(event) => setLevel(event.target.value)} inputProps={{ 'aria-label': 'Level' }}>
        {['read', 'write', 'admin'].map((l) => (
          <MenuItem key={l} value={l}>
            {l}
          </MenuItem>
        ))}
      </Select>
      <Button label="Grant" variant="outlined" disabled={team === ''} onClick={() => void grant()} />
    </Stack>
  );
}

/** Why the caller holds their level, in words. */
function why(access: EntityAccess): string {
  if (access.myTeamRole === 'lead') return 'you lead the team that owns it';
  if (access.myTeamRole === 'member') return 'you are in the team that owns it';
  return 'from your roles and grants';
}

/**
 * The permissions tab of an entity: what you may do and why, who owns it, its grants (which its
 * administrators give and take here).
 */
export function PermissionsPanel() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const access = useEntityAccess(resource, record?.id);
  const queryClient = useQueryClient();
  const notify = useNotify();
  if (!record || !access) return null;
  const id = String(record.id);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: accessKey(resource, id) });
  const admin = access.availableActions.includes('grant');
  const revoke = (subjectType: string, subjectId: string) =>
    api(`/api/${resource}/${encodeURIComponent(id)}/grants/${subjectType}/${subjectId}`, { method: 'DELETE' })
      .then(refresh)
      .catch((error: unknown) => notify(messageOf(error), { type: 'error' }));
  return (
    <Box component="section" aria-label="Permissions" data-testid="permissions-panel" sx={{ mt: 2 }}>
      <Typography variant="h6" component="h2">
        Permissions
      </Typography>
      <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
        <Item label="You may">
          <Stack direction="row" spacing={0.5}>
            {access.myPermissions.map((level) => (
              <Chip key={level} size="small" label={level} data-testid="my-permission" />
            ))}
          </Stack>
          <Typography variant="caption" color="text.secondary">
            {why(access)}
          </Typography>
        </Item>
        <Item label="Owner">
          {access.owner ? (
            <Typography>{access.owner.name ?? access.owner.id}</Typography>
          ) : (
            <Typography color="text.secondary">no team</Typography>
          )}
        </Item>
        <Item label="Available actions">
          <Typography data-testid="available-actions">{access.availableActions.join(', ') || 'none'}</Typography>
        </Item>
      </Stack>
      {access.grants.length > 0 && (
        <Table size="small" aria-label="Grants">
          <TableHead>
            <TableRow>
              <TableCell>Granted to</TableCell>
              <TableCell>Level</TableCell>
              <TableCell>Since</TableCell>
              <TableCell>
                <Box component="span" sx={HIDDEN}>
                  Actions
                </Box>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {access.grants.map((grant) => (
              <TableRow key={`${grant.subjectType}:${grant.subjectId}`}>
                <TableCell>
                  {grant.subjectType} {grant.subjectName ?? grant.subjectId}
                </TableCell>
                <TableCell>{grant.level}</TableCell>
                <TableCell>{new Date(grant.grantedAt).toLocaleString()}</TableCell>
                <TableCell>{admin && <Button label="Revoke" onClick={() => void revoke(grant.subjectType, grant.subjectId)} />}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      {admin && <GrantForm resource={resource} id={id} onDone={refresh} />}
    </Box>
  );
}
