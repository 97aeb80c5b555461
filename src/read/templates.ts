/** A template as the REST API shows it (camelCase; relations as id lists). */
export interface TemplateView {
  readonly id: string;
  readonly name: string;
  readonly template: string;
  readonly description: string;
  readonly labels: readonly string[];
  readonly abstract: boolean;
  readonly cloudResourceTypes: readonly string[];
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly status: string;
  readonly executorIds: readonly string[];
  readonly parentIds: readonly string[];
  readonly creatorId: string | null;
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}
