import { resetSingleton } from '../../app/utils/singleton.server';

/**
 * Runs `fn` with the installation's default: private, loopback and link-local destinations refused (the test suite
 * allows them, for its local stand-ins). The configuration is read again on both sides.
 */
export async function withPrivateDestinationsOff<T>(fn: () => Promise<T>) {
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'false';
  resetSingleton('config');
  try {
    return await fn();
  } finally {
    process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
    resetSingleton('config');
  }
}
