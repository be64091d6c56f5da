// The ceiling app's server: Express 5 + @remix-run/express, production mode, as Parley's server mounts Remix.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { createRequestHandler } from '@remix-run/express';

const here = path.dirname(fileURLToPath(import.meta.url));
const build = await import(pathToFileURL(path.join(here, 'build/index.js')).href);
const app = express();
// The same Server-Timing as Parley's PARLEY_SERVER_TIMING=1 (server/app.ts): arrival here to the headers.
app.use((req, res, next) => {
  const start = process.hrtime.bigint();
  const writeHead = res.writeHead;
  res.writeHead = function (...args) {
    if (!this.headersSent) this.setHeader('Server-Timing', `app;dur=${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(2)}`);
    return writeHead.apply(this, args);
  };
  next();
});
app.use('/build', express.static(path.join(here, 'public/build'), { immutable: true, maxAge: '1y' }));
app.use(createRequestHandler({ build, mode: 'production' }));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`ceiling listening on ${server.address().port}`));
