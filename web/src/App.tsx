import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import { Admin, CustomRoutes, Resource, mergeTranslations, type TranslationMessages } from 'react-admin';
import { Route } from 'react-router-dom';
import { authProvider } from './api/authProvider';
import { dataProvider } from './api/dataProvider';
import { AuditLogList } from './admin/auditLog';
import { AuthProviderCreate, AuthProviderEdit, AuthProviderList } from './admin/authProviders';
import { UserCreate, UserEdit, UserList } from './admin/users';
import { ApprovalQueue } from './approvals/ApprovalQueue';
import { ExecutorCreate, ExecutorEdit, ExecutorList, ExecutorShow } from './catalog/executors';
import { IntegrationCreate, IntegrationEdit, IntegrationList, IntegrationShow } from './catalog/integrations';
import { ResourceCreate, ResourceEdit, ResourceList, ResourceShow } from './catalog/resources';
import { SecretCreate, SecretEdit, SecretList, SecretShow } from './catalog/secrets';
import { SourceCodeVersionCreate, SourceCodeVersionEdit, SourceCodeVersionList, SourceCodeVersionShow } from './catalog/sourceCodeVersions';
import { SourceCodeCreate, SourceCodeEdit, SourceCodeList, SourceCodeShow } from './catalog/sourceCodes';
import { StorageCreate, StorageEdit, StorageList, StorageShow } from './catalog/storages';
import { TemplateCreate, TemplateEdit, TemplateList, TemplateShow } from './catalog/templates';
import { WorkspaceCreate, WorkspaceEdit, WorkspaceList, WorkspaceShow } from './catalog/workspaces';
import { Dashboard } from './layout/Dashboard';
import { Layout } from './layout/Layout';
import { LoginPage } from './login/LoginPage';
import { PersonalAccessTokenList } from './self/personalAccessTokens';
import { theme } from './theme';


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
      <Resource name="resources" list={ResourceList} show={ResourceShow} create={ResourceCreate} edit={ResourceEdit} recordRepresentation="name" />
      <Resource name="templates" list={TemplateList} show={TemplateShow} create={TemplateCreate} edit={TemplateEdit} recordRepresentation="name" />
      <Resource name="source_codes" options={{ label: 'Source codes' }} list={SourceCodeList} show={SourceCodeShow} create={SourceCodeCreate} edit={SourceCodeEdit} recordRepresentation="identifier" />
      <Resource name="source_code_versions" options={{ label: 'Source code versions' }} list={SourceCodeVersionList} show={SourceCodeVersionShow} create={SourceCodeVersionCreate} edit={SourceCodeVersionEdit} recordRepresentation="identifier" />
      <Resource name="executors" list={ExecutorList} show={ExecutorShow} create={ExecutorCreate} edit={ExecutorEdit} recordRepresentation="name" />
      <Resource name="storages" list={StorageList} show={StorageShow} create={StorageCreate} edit={StorageEdit} recordRepresentation="name" />
      <Resource name="integrations" list={IntegrationList} show={IntegrationShow} create={IntegrationCreate} edit={IntegrationEdit} recordRepresentation="name" />
      <Resource name="secrets" list={SecretList} show={SecretShow} create={SecretCreate} edit={SecretEdit} recordRepresentation="name" />
      <Resource name="workspaces" list={WorkspaceList} show={WorkspaceShow} create={WorkspaceCreate} edit={WorkspaceEdit} recordRepresentation="name" />
      <Resource name="auth_providers" options={{ label: 'Auth providers' }} list={AuthProviderList} create={AuthProviderCreate} edit={AuthProviderEdit} recordRepresentation="name" />
      <Resource name="users" list={UserList} create={UserCreate} edit={UserEdit} recordRepresentation="name" />
      <Resource name="audit_log" options={{ label: 'Audit log' }} list={AuditLogList} />
      <Resource name="personal_access_tokens" options={{ label: 'Access tokens' }} list={PersonalAccessTokenList} />
      <CustomRoutes>
        <Route path="/approvals" element={<ApprovalQueue />} />
      </CustomRoutes>
    </Admin>
  );
}
