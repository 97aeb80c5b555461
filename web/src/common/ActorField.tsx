import { Typography } from '@mui/material';
import { ReferenceField, TextField, useGetIdentity, usePermissions, useRecordContext } from 'react-admin';
import { USER_NAMES } from '../api/dataProvider';
import { allows } from '../api/permissions';

/**
 * Who did it: a link to the user for those who may read users; otherwise "you" or the user's name
 * (looked up through GraphQL, which shows names to every role), else the start of the id.
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
  if (id === identity?.id)
    return (
      <Typography variant="body2" component="span" title={id}>
        you
      </Typography>
    );
  return (
    <ReferenceField source={source} reference={USER_NAMES} link={false} empty={`user ${id.slice(0, 8)}`}>
      <TextField source="name" />
    </ReferenceField>
  );
}
