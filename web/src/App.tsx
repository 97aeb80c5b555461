import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import { Admin, CustomRoutes, Resource, mergeTranslations, type TranslationMessages } from 'react-admin';
import { Route } from 'react-router-dom';
import { authProvider } from './api/authProvider';
import { dataProvider } from './api/dataProvider';
import { lazyPages, withBoundary } from './lazyPages';
import { LoginPage } from './login/LoginPage';
import { theme } from './theme';

// Every page but the sign-in page loads on demand (./lazyPages.tsx): the sign-in page stays small.
const { AuditLogList } = lazyPages(() => import('./admin/auditLog'), ['AuditLogList']);
const { AuthProviderCreate, AuthProviderEdit, AuthProviderList } = lazyPages(
  () => import('./admin/authProviders'),
  ['AuthProviderCreate', 'AuthProviderEdit', 'AuthProviderList'],
);
const { UserCreate, UserEdit, UserList } = lazyPages(() => import('./admin/users'), ['UserCreate', 'UserEdit', 'UserList']);
const { WebhookCreate, WebhookEdit, WebhookList, WebhookShow } = lazyPages(
  () => import('./admin/webhooks'),
  ['WebhookCreate', 'WebhookEdit', 'WebhookList', 'WebhookShow'],
);
const { TeamCreate, TeamEdit, TeamList, TeamShow } = lazyPages(
  () => import('./admin/teams'),
  ['TeamCreate', 'TeamEdit', 'TeamList', 'TeamShow'],
);
const { ApprovalQueue } = lazyPages(() => import('./approvals/ApprovalQueue'), ['ApprovalQueue']);
const { ExecutorCreate, ExecutorEdit, ExecutorList, ExecutorShow } = lazyPages(
  () => import('./catalog/executors'),
  ['ExecutorCreate', 'ExecutorEdit', 'ExecutorList', 'ExecutorShow'],
);
const { IntegrationCreate, IntegrationEdit, IntegrationList, IntegrationShow } = lazyPages(
  () => import('./catalog/integrations'),
  ['IntegrationCreate', 'IntegrationEdit', 'IntegrationList', 'IntegrationShow'],
);
const { ResourceCreate, ResourceEdit, ResourceList, ResourceShow } = lazyPages(
  () => import('./catalog/resources'),
  ['ResourceCreate', 'ResourceEdit', 'ResourceList', 'ResourceShow'],
);
const { SecretCreate, SecretEdit, SecretList, SecretShow } = lazyPages(
  () => import('./catalog/secrets'),
  ['SecretCreate', 'SecretEdit', 'SecretList', 'SecretShow'],
);
const { SourceCodeVersionCreate, SourceCodeVersionEdit, SourceCodeVersionList, SourceCodeVersionShow } = lazyPages(
  () => import('./catalog/sourceCodeVersions'),
  ['SourceCodeVersionCreate', 'SourceCodeVersionEdit', 'SourceCodeVersionList', 'SourceCodeVersionShow'],
);
const { SourceCodeCreate, SourceCodeEdit, SourceCodeList, SourceCodeShow } = lazyPages(
  () => import('./catalog/sourceCodes'),
  ['SourceCodeCreate', 'SourceCodeEdit', 'SourceCodeList', 'SourceCodeShow'],
);
const { StorageCreate, StorageEdit, StorageList, StorageShow } = lazyPages(
  () => import('./catalog/storages'),
  ['StorageCreate', 'StorageEdit', 'StorageList', 'StorageShow'],
);
const { TemplateCreate, TemplateEdit, TemplateList, TemplateShow } = lazyPages(
  () => import('./catalog/templates'),
  ['TemplateCreate', 'TemplateEdit', 'TemplateList', 'TemplateShow'],
);
const { WorkspaceCreate, WorkspaceEdit, WorkspaceList, WorkspaceShow } = lazyPages(
  () => import('./catalog/workspaces'),
  ['WorkspaceCreate', 'WorkspaceEdit', 'WorkspaceList', 'WorkspaceShow'],
);
const { Dashboard } = lazyPages(() => import('./layout/Dashboard'), ['Dashboard']);
// The layout renders outside react-admin's Suspense boundary (it holds it), so it brings its own.
const Layout = withBoundary(lazyPages(() => import('./layout/Layout'), ['Layout']).Layout);
const { PersonalAccessTokenList } = lazyPages(() => import('./self/personalAccessTokens'), ['PersonalAccessTokenList']);

// react-admin's English, with notifications that say what happened rather than "Element created".
const i18nProvider = polyglotI18nProvider(
  () =>
    mergeTranslations(englishMessages, {
      ra: {
        notification: { created: 'Created', updated: 'Saved', deleted: 'Deleted' },
      },
    }) as TranslationMessages,
  'en',
);

/** The web UI: the catalog, self-service tokens and administration over the REST API. */
export function App() {
  return (
    <Admin
      title="infraledger"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      loginPage={LoginPage}
      layout={Layout}
      dashboard={Dashboard}
      theme={theme}
      requireAuth
      disableTelemetry
    >
      <Resource
        name="resources"
        list={ResourceList}
        show={ResourceShow}
        create={ResourceCreate}
        edit={ResourceEdit}
        recordRepresentation="name"
      />
      <Resource
        name="templates"
        list={TemplateList}
        show={TemplateShow}
        create={TemplateCreate}
        edit={TemplateEdit}
        recordRepresentation="name"
      />
      <Resource
        name="source_codes"
        options={{ label: 'Source codes' }}
        list={SourceCodeList}
        show={SourceCodeShow}
        create={SourceCodeCreate}
        edit={SourceCodeEdit}
        recordRepresentation="identifier"
      />
      <Resource
        name="source_code_versions"
        options={{ label: 'Source code versions' }}
        list={SourceCodeVersionList}
        show={SourceCodeVersionShow}
        create={SourceCodeVersionCreate}
        edit={SourceCodeVersionEdit}
        recordRepresentation="identifier"
      />
      <Resource
        name="executors"
        list={ExecutorList}
        show={ExecutorShow}
        create={ExecutorCreate}
        edit={ExecutorEdit}
        recordRepresentation="name"
      />
      <Resource
        name="storages"
        list={StorageList}
        show={StorageShow}
        create={StorageCreate}
        edit={StorageEdit}
        recordRepresentation="name"
      />
      <Resource
        name="integrations"
        list={IntegrationList}
        show={IntegrationShow}
        create={IntegrationCreate}
        edit={IntegrationEdit}
        recordRepresentation="name"
      />
      <Resource name="secrets" list={SecretList} show={SecretShow} create={SecretCreate} edit={SecretEdit} recordRepresentation="name" />
      <Resource
        name="workspaces"
        list={WorkspaceList}
        show={WorkspaceShow}
        create={WorkspaceCreate}
        edit={WorkspaceEdit}
        recordRepresentation="name"
      />
      <Resource
        name="auth_providers"
        options={{ label: 'Auth providers' }}
        list={AuthProviderList}
        create={AuthProviderCreate}
        edit={AuthProviderEdit}
        recordRepresentation="name"
      />
      <Resource name="users" list={UserList} create={UserCreate} edit={UserEdit} recordRepresentation="name" />
      <Resource name="teams" list={TeamList} show={TeamShow} create={TeamCreate} edit={TeamEdit} recordRepresentation="name" />
      <Resource
        name="webhooks"
        list={WebhookList}
        show={WebhookShow}
        create={WebhookCreate}
        edit={WebhookEdit}
        recordRepresentation="name"
      />
      <Resource name="audit_log" options={{ label: 'Audit log' }} list={AuditLogList} />
      <Resource name="personal_access_tokens" options={{ label: 'Access tokens' }} list={PersonalAccessTokenList} />
      <CustomRoutes>
        <Route path="/approvals" element={<ApprovalQueue />} />
      </CustomRoutes>
    </Admin>
  );
}
