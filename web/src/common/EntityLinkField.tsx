import { Link as MuiLink, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { Link } from 'react-router-dom';
import { RESOURCE_OF_KIND, words } from './entities';

/** An audit entry's entity: its type and a link to its page when the UI has one. */
export function EntityLinkField(_props: { readonly label?: string; readonly sortable?: boolean }) {
  const record = useRecordContext();
  const type = typeof record?.entityType === 'string' ? record.entityType : '';
  const id = typeof record?.entityId === 'string' ? record.entityId : null;
  const target = RESOURCE_OF_KIND[type];
  return (
    <Typography variant="body2" component="span">
      {words(type)}{' '}
      {id &&
        (target ? (
          <MuiLink component={Link} to={`/${target.resource}/${id}${target.page === 'show' ? '/show' : ''}`} title={id}>
            {id.slice(0, 8)}
          </MuiLink>
        ) : (
          <span title={id}>{id.slice(0, 8)}</span>
        ))}
    </Typography>
  );
}
