import zlib from 'node:zlib';
import { buildWidgetBundle } from '../app/models/channels/widget-bundle.server';
const b = await buildWidgetBundle();
console.log(b.code.length, zlib.gzipSync(b.code, { level: 9 }).length);
