/** A tree as GET /api/{resources|templates}/{id}/tree/{direction} answers it (docs/api/rest.md). */
export interface TreeNode {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly link: string;
  readonly children?: readonly TreeNode[];
  readonly parents?: readonly TreeNode[];
}

export interface Tree {
  readonly root: TreeNode;
  readonly totalNodes: number;
  readonly truncated: boolean;
}

export type Direction = 'children' | 'parents';
