import { Box, Typography } from '@mui/material';
import { Datagrid, DateField, Pagination, ReferenceManyField, TextField } from 'react-admin';
import { StatusChip } from './StatusChip';

/**
 * The entities of another kind that point at this one (a template's resources and versions, a
 * source code's versions), newest first, each row opening its page.
 */
export function RelatedList({
  title,
  reference,
  target,
  nameSource = 'name',
}: {
  readonly title: string;
  readonly reference: string;
  readonly target: string;
  readonly nameSource?: string;
}) {
  const id = `related-${reference}-heading`;
  return (
    <Box component="section" aria-labelledby={id} sx={{ mt: 3, width: '100%' }}>
      <Typography id={id} variant="h6" component="h2" gutterBottom>
        {title}
      </Typography>
      <ReferenceManyField
        reference={reference}
        target={target}
        sort={{ field: 'createdAt', order: 'DESC' }}
        perPage={10}
        pagination={<Pagination rowsPerPageOptions={[10, 25, 50]} />}
        empty={<Typography color="text.secondary">None yet.</Typography>}
      >
        <Datagrid bulkActionButtons={false} rowClick="show" data-testid={`related-${reference}`}>
          <TextField source={nameSource} label="Name" sortable={false} />
          <StatusChip label="Status" sortable={false} />
          <DateField source="createdAt" label="Created" showTime sortable={false} />
        </Datagrid>
      </ReferenceManyField>
    </Box>
  );
}
