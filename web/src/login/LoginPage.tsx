import GitHubIcon from '@mui/icons-material/GitHub';
import KeyIcon from '@mui/icons-material/Key';
import LoginIcon from '@mui/icons-material/Login';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Divider, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useState, type SyntheticEvent } from 'react';
import { useLogin } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { messageOf } from '../api/problem';
import { loginErrorMessage } from './loginErrors';

/** One entry of GET /api/auth/providers (public). */
interface LoginOption {
  readonly key: string;
  readonly type: string;
  readonly name: string;
  readonly loginUrl: string | null;
}

const SSO_TYPES = new Set(['github', 'google', 'microsoft']);

function useLoginOptions(): { options: LoginOption[] | undefined; error: string | undefined } {
  const [options, setOptions] = useState<LoginOption[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/auth/providers', { headers: { accept: 'application/json' }, signal: controller.signal })
      .then(async (response) => {
        if (!response.ok) throw new Error(`the sign-in methods could not be loaded (HTTP ${response.status})`);
        setOptions((await response.json()) as LoginOption[]);
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
  }, []);
  return { options, error };
}

function ServiceAccountForm() {
  const login = useLogin();
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    login({ method: 'service_account', identifier, password }).catch((e: unknown) => {
      setError(messageOf(e));
      setBusy(false);
    });
  };
  return (
    <Box component="form" onSubmit={submit} aria-labelledby="service-account-heading" noValidate>
      <Typography id="service-account-heading" variant="subtitle1" component="h2" gutterBottom>
        Service account
      </Typography>
      <Stack spacing={2}>
        <TextField
          label="Identifier"
          name="identifier"
          autoComplete="username"
          value={identifier}
          onChange={(e) => setIdentifier(e.target.value)}
          required
          fullWidth
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          fullWidth
        />
        {error && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
        <Button
          type="submit"
          variant="contained"
          disabled={busy || identifier === '' || password === ''}
          startIcon={busy ? <CircularProgress size={16} /> : <KeyIcon />}
        >
          Sign in
        </Button>
        <Typography variant="caption" color="text.secondary">
          A service-account session lasts until its token expires or this tab is closed; it cannot be refreshed.
        </Typography>
      </Stack>
    </Box>
  );
}

function GuestSignIn() {
  const login = useLogin();
  const [error, setError] = useState<string>();
  return (
    <Stack spacing={1}>
      <Alert severity="warning" icon={<WarningAmberIcon />}>
        Guest sign-in is enabled: anyone can sign in as the shared guest identity. <strong>Insecure, for development only.</strong>
      </Alert>
      <Button
        variant="outlined"
        color="warning"
        onClick={() => {
          setError(undefined);
          login({ method: 'guest' }).catch((e: unknown) => setError(messageOf(e)));
        }}
      >
        Continue as guest
      </Button>
      {error && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
    </Stack>
  );
}

/** /login: a button per enabled single sign-on provider, the service-account form, and guest sign-in when enabled. */
export function LoginPage() {
  const [params] = useSearchParams();
  const code = params.get('error');
  const { options, error } = useLoginOptions();
  const sso = (options ?? []).filter((o) => SSO_TYPES.has(o.type) && o.loginUrl !== null);
  const serviceAccounts = options === undefined ? error !== undefined : options.some((o) => o.type === 'svc_service_account');
  const guest = (options ?? []).some((o) => o.type === 'guest');
  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: 'grey.100', p: 2 }}
    >
      <Card sx={{ width: 420, maxWidth: '100%' }}>
        <CardContent>
          <Stack spacing={3}>
            <Box>
              <Typography variant="h5" component="h1">
                infraledger
              </Typography>
              <Typography variant="body2" color="text.secondary">
                Sign in to the infrastructure catalog
              </Typography>
            </Box>
            {code && (
              <Alert severity="error" role="alert" data-testid="login-error">
                {loginErrorMessage(code)}
              </Alert>
            )}
            {error && <Alert severity="warning">{error}</Alert>}
            {options === undefined && error === undefined && (
              <Box sx={{ display: 'flex', justifyContent: 'center' }} aria-live="polite">
                <CircularProgress size={24} aria-label="Loading sign-in methods" />
              </Box>
            )}
            {sso.length > 0 && (
              <Stack spacing={1} aria-label="Single sign-on">
                {sso.map((option) => (
                  <Button
                    key={option.key}
                    variant="contained"
                    color="secondary"
                    href={option.loginUrl ?? '#'}
                    startIcon={option.type === 'github' ? <GitHubIcon /> : <LoginIcon />}
                  >
                    Sign in with {option.name}
                  </Button>
                ))}
              </Stack>
            )}
            {sso.length > 0 && serviceAccounts && <Divider>or</Divider>}
            {serviceAccounts && <ServiceAccountForm />}
            {guest && <GuestSignIn />}
            {options !== undefined && sso.length === 0 && !serviceAccounts && !guest && (
              <Alert severity="info">No interactive sign-in method is enabled. Ask an administrator.</Alert>
            )}
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}
