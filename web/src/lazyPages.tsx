import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';

/** A page component whose code loads when it first renders (React.lazy over a named export). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- page props differ; react-admin passes its own
export type LazyPage = LazyExoticComponent<ComponentType<any>>;

/**
 * The named exports `names` of the module `load` imports, each a lazy component: the module becomes
 * a chunk of its own, fetched when one of its pages first renders, so the sign-in page does not load
 * the catalog's and the administration's code (docs/benchmarks.md, "Web UI bundle"). react-admin's
 * layout shows its loading indicator (a Suspense boundary) meanwhile.
 */
export function lazyPages<M, K extends keyof M & string>(load: () => Promise<M>, names: readonly K[]): Record<K, LazyPage> {
  const pages = {} as Record<K, LazyPage>;
  for (const name of names) {
    pages[name] = lazy(async () => ({ default: (await load())[name] as ComponentType<unknown> }));
  }
  return pages;
}

/** A lazy component rendered outside react-admin's layout (the layout itself), with a boundary of its own. */
export function withBoundary<P extends object>(Page: ComponentType<P>): ComponentType<P> {
  const Bounded = (props: P) => (
    <Suspense fallback={null}>
      <Page {...props} />
    </Suspense>
  );
  return Bounded;
}
