import { Typography } from '@mui/material';
import { useGetList } from 'react-admin';
import { DiffList, type FieldChange } from '../common/auditFields';

interface AuditEntry {
  readonly id: string;
  readonly verb: string;
  readonly diff: readonly FieldChange[];
}

/** The most entries of one resource read to find its last approval. */
const LOOK_BACK = 50;

/**
 * What changed in a waiting request since it was last approved (docs/contract.md §2, "Changes after
 * approval"): the updates of its history after the newest `approved` entry, before → after, newest
 * first. Nothing for a request that was never approved (all of it is new).
 */
export function ChangesSinceApproval({ id }: { readonly id: string }) {
  const { data } = useGetList<AuditEntry>('audit_log', {
    filter: { entityId: id },
    sort: { field: 'at', order: 'DESC' },
    pagination: { page: 1, perPage: LOOK_BACK },
  });
  const entries = data ?? [];
  const approved = entries.findIndex((entry) => entry.verb === 'approved');
  if (approved < 0) return null;
  const changes = entries
    .slice(0, approved)
    .filter((entry) => entry.verb === 'updated')
    .flatMap((entry) => entry.diff);
  if (changes.length === 0) return null;
  return (
    <div data-testid="changes-since-approval">
      <Typography variant="caption" color="text.secondary" component="div">
        Approved before; changed since:
      </Typography>
      <DiffList diff={changes} />
    </div>
  );
}
