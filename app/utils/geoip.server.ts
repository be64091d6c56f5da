import maxmind, { type Reader, type Response } from 'maxmind';
import { getLogger } from './logger.server';
import { clientIp } from './rate-limit.server';

/**
 * A visitor's country (ISO 3166 alpha-2) for push segments' location (ADR 115): read from an offline MaxMind DB file
 * when the operator names one in PARLEY_GEOIP_DB (GeoLite2/GeoIP2 Country or City, DB-IP or ip-location-db's country
 * files: any .mmdb whose record names the country), else the country header a proxy in front of Parley sets
 * (Cloudflare's CF-IPCountry), else null. The database is opened once per path by `maxmind` (a well-kept reader of
 * the format) and reopened by it when the file is replaced, so a weekly update needs no restart.
 */

type CountryRecord = Response & { country?: { iso_code?: string }; registered_country?: { iso_code?: string }; country_code?: string };

let opened: { path: string; reader: Promise<Reader<CountryRecord> | null> } | null = null;

function readerFor(path: string) {
  if (opened?.path !== path) {
    const reader = maxmind.open<CountryRecord>(path, { cache: { max: 10_000 }, watchForUpdates: true, watchForUpdatesNonPersistent: true }).catch((err: unknown) => {
      // Said once, loudly: a configured database that cannot be read is an operator's mistake, not a silent fallback.
      getLogger().error({ err, path }, 'PARLEY_GEOIP_DB cannot be read; locations come from the proxy header only');
      return null;
    });
    opened = { path, reader };
  }
  return opened.reader;
}

const COUNTRY = /^[A-Z]{2}$/;

/** The country of an IP address in the configured database, or null (no database, a private address, not found). */
export async function countryOfIp(ip: string, path = process.env.PARLEY_GEOIP_DB) {
  if (!path || !maxmind.validate(ip)) return null;
  const reader = await readerFor(path);
  const record = reader?.get(ip);
  const code = (record?.country?.iso_code ?? record?.country_code ?? record?.registered_country?.iso_code)?.toUpperCase();
  return code && COUNTRY.test(code) ? code : null;
}

/** The request's country: the database's answer for the client's address, else the proxy's header. */
export async function countryOfRequest(request: Request) {
  const header = request.headers.get('cf-ipcountry')?.toUpperCase() ?? null;
  const ip = clientIp(request).replace(/^::ffff:/, '');
  return (await countryOfIp(ip)) ?? (header && COUNTRY.test(header) ? header : null);
}
