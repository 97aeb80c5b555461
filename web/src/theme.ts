import { defaultTheme, type RaThemeOptions } from 'react-admin';

/**
 * react-admin's theme with colours that meet WCAG AA contrast (4.5:1) as text on white and on the
 * form toolbar's grey, and as white text on chips: MUI's default warning (#ed6c02, 3.1:1), info
 * (#0288d1, 4.1:1) and error (#d32f2f, 4.0:1 on the toolbar's #e0e0e0) fall short (axe-core's color-contrast; see
 * test/e2e/web-ui-accessibility.e2e.spec.ts).
 */
export const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: {
    ...defaultTheme.palette,
    primary: { main: '#1e3a5f' },
    secondary: { main: '#24292f' },
    error: { main: '#b71c1c' },
    warning: { main: '#a64600' },
    info: { main: '#0264a8' },
    success: { main: '#2e7d32' },
  },
  components: {
    ...defaultTheme.components,
    // A spinner needs a name for screen readers (axe: aria-progressbar-name).
    MuiCircularProgress: { defaultProps: { 'aria-label': 'Loading' } },
    MuiLinearProgress: { defaultProps: { 'aria-label': 'Loading' } },
    // The hint under a read-only (disabled) input stays readable: it says why the field is fixed.
    MuiFormHelperText: { styleOverrides: { root: { '&.Mui-disabled': { color: 'rgba(0, 0, 0, 0.6)' } } } },
  },
};
