import { Typography } from '@mui/material';
import { ReferenceField, TextField, useGetIdentity, usePermissions, useRecordContext } from 'react-admin';
import { allows } from '../api/permissions';

/**
 * Who did it: a link to the user for those who may read users; otherwise "you" or the user id
 * (the REST API has no user lookup for other roles).
 */
export function ActorField({ source = 'actorId' }: { readonly source?: string; readonly label?: string; readonly sortable?: boolean }) {
  const record = useRecordContext();
  const { permissions } = usePermissions<readonly string[]>();
  const { identity } = useGetIdentity();
  const id = record?.[source] as string | null | undefined;
  if (!id)
    return (
      <Typography variant="body2" color="text.secondary" component="span">
        system
      </Typography>
    );
  if (allows(permissions, 'user', 'read'))
    return (
      <ReferenceField source={source} reference="users" link="edit">
        <TextField source="name" />
      </ReferenceField>
    );
  return (
    <Typography variant="body2" component="span" title={id}>
      {id === identity?.id ? 'you' : `user ${id.slice(0, 8)}`}
    </Typography>
  );
}
