import { inviteUser } from './invitations';
import type { EventHandler } from './types';
import { welcomeOwner } from './welcome';

/** Every handler the engine runs; later areas (workflows, routing, SLA) register here. */
export const HANDLERS: EventHandler[] = [welcomeOwner, inviteUser];
