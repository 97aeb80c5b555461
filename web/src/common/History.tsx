import { Box, Typography } from '@mui/material';
import { Datagrid, DateField, Pagination, ReferenceManyField } from 'react-admin';
import { AuditActorField, DiffField, VerbField } from './auditFields';

/** The entity's history: its audit entries (GET /api/audit_log filtered by entityId), newest first, in words. */
export function History() {
  return (
    <Box component="section" aria-labelledby="history-heading" sx={{ mt: 3, width: '100%' }}>
      <Typography id="history-heading" variant="h6" component="h2" gutterBottom>
        History
      </Typography>
      <ReferenceManyField
        reference="audit_log"
        target="entityId"
        sort={{ field: 'at', order: 'DESC' }}
        perPage={10}
        pagination={<Pagination rowsPerPageOptions={[10, 25, 50]} />}
        empty={<Typography color="text.secondary">No recorded changes.</Typography>}
      >
        <Datagrid bulkActionButtons={false} rowClick={false} data-testid="history" sx={{ '& td': { verticalAlign: 'top' } }}>
          <DateField source="at" label="When" showTime sortable={false} />
          <AuditActorField label="Who" />
          <VerbField label="Did" />
          <DiffField label="Changes" />
        </Datagrid>
      </ReferenceManyField>
    </Box>
  );
}
