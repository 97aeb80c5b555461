import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import type { VariableDeclaration } from './variables';

/** A declaration's rule in words: `matches …`, `1 – 5`, with its own message. */
function ruleOf(declaration: VariableDeclaration): string {
  const rule = declaration.validation;
  if (!rule) return '—';
  const parts: string[] = [];
  if (rule.regex !== undefined) parts.push(`matches ${rule.regex}`);
  if (rule.values !== undefined) parts.push(`one of ${rule.values.join(', ')}`);
  if (rule.min !== undefined || rule.max !== undefined) parts.push(`${rule.min ?? '…'} – ${rule.max ?? '…'}`);
  if (rule.message !== undefined) parts.push(`“${rule.message}”`);
  return parts.join('; ');
}

/** A version's declared variables as a table (what the request form will ask for). */
export function VariableDeclarationsField() {
  const record = useRecordContext();
  const declared = (record?.variables ?? []) as VariableDeclaration[];
  if (declared.length === 0) return <Typography color="text.secondary">None declared.</Typography>;
  return (
    <Box sx={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Declared variables">
      <Table size="small" data-testid="declared-variables">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Type</TableCell>
            <TableCell>Required</TableCell>
            <TableCell>Default</TableCell>
            <TableCell>Sensitive</TableCell>
            <TableCell>Rule</TableCell>
            <TableCell>Description</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {declared.map((declaration) => (
            <TableRow key={declaration.name}>
              <TableCell sx={{ fontFamily: 'monospace' }}>{declaration.name}</TableCell>
              <TableCell>{declaration.type}</TableCell>
              <TableCell>{declaration.required ? 'yes' : 'no'}</TableCell>
              <TableCell sx={{ fontFamily: 'monospace' }}>
                {declaration.default === null || declaration.default === undefined ? '—' : JSON.stringify(declaration.default)}
              </TableCell>
              <TableCell>{declaration.sensitive ? 'yes' : 'no'}</TableCell>
              <TableCell>{ruleOf(declaration)}</TableCell>
              <TableCell>{declaration.description || '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
