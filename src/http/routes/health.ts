import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';

/** `/healthz`: the process answers. `/readyz`: the stores answer and every projection is near the head. */
export function healthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { config: { public: true } }, () => ({ status: 'ok' }));

  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    const problems: string[] = [];
    let head: bigint | undefined;
    try {
      await services.pool.query('SELECT 1');
    } catch {
      problems.push('read model database unreachable');
    }
    try {
      head = await services.store.headPosition();
    } catch {
      problems.push('event store unreachable');
    }
    // Positions are not dense: lag is counted in events (bounded), once per distinct checkpoint.
    const cap = services.config.READY_MAX_LAG + 1;
    const lags = new Map<string, Promise<number>>();
    const lagOf = (position: bigint | undefined): Promise<number> => {
      const key = String(position);
      let lag = lags.get(key);
      if (!lag) {
        lag = head === undefined ? Promise.resolve(0) : services.store.countAfter(position, cap).catch(() => 0);
        lags.set(key, lag);
      }
      return lag;
    };
    const projections = await Promise.all(
      services.runners.map(async (runner) => {
        const lag = await lagOf(runner.position);
        if (runner.state === 'failed') problems.push(`projection ${runner.projection.name} is stopped on a poison event`);
        else if (lag > services.config.READY_MAX_LAG)
          problems.push(`projection ${runner.projection.name} lags more than ${services.config.READY_MAX_LAG} events`);
        return { name: runner.projection.name, state: runner.state, position: runner.position?.toString() ?? null, lag };
      }),
    );
    const body = { status: problems.length === 0 ? 'ready' : 'not_ready', problems, head: head?.toString() ?? null, projections };
    return reply.status(problems.length === 0 ? 200 : 503).send(body);
  });
}
