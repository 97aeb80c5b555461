import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A labelled value on a show page. */
export function Item({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <Box sx={{ minWidth: 200, mb: 2 }} role="group" aria-label={label}>
      <Typography variant="caption" color="text.secondary" component="p">
        {label}
      </Typography>
      <Box sx={{ mt: 0.5 }}>{children}</Box>
    </Box>
  );
}
