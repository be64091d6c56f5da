import pino from 'pino';
import { currentCorrelation } from './correlation.server';
import { getConfig } from './env.server';
import { singleton } from './singleton.server';

export function getLogger() {
  return singleton('logger', () =>
    pino({
      level: process.env.LOG_LEVEL || getConfig().logLevel,
      base: undefined,
      // Every line carries the correlation id of the request or job that caused it (ADR 150).
      mixin() {
        const c = currentCorrelation();
        if (!c) return {};
        return c.jobId ? { requestId: c.requestId, jobId: c.jobId } : { requestId: c.requestId };
      },
      redact: {
        paths: ['password', '*.password', 'token', '*.token', 'code', '*.code', 'headers.cookie', 'req.headers.cookie', 'authorization', '*.authorization'],
        censor: '[redacted]',
      },
    }),
  );
}
