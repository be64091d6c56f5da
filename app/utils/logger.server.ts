import pino from 'pino';
import { getConfig } from './env.server';
import { singleton } from './singleton.server';

export function getLogger() {
  return singleton('logger', () =>
    pino({
      level: process.env.LOG_LEVEL || getConfig().logLevel,
      base: undefined,
      redact: {
        paths: ['password', '*.password', 'token', '*.token', 'code', '*.code', 'headers.cookie', 'req.headers.cookie', 'authorization', '*.authorization'],
        censor: '[redacted]',
      },
    }),
  );
}
