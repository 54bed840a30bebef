/**
 * The action registry: the console's keys, its help, the footer hints and the CLI subcommands are
 * all generated from these entries.
 */
import { UserError } from '../errors.js';
import { attachAction } from './attach.js';
import { cleanupAction } from './cleanup.js';
import { deleteDeviceAction } from './delete-device.js';
import { flushAction } from './flush.js';
import { forgetAction } from './forget.js';
import { withIscsidCheck } from './iscsid-needed.js';
import { logoutAction } from './logout.js';
import { onlineAction } from './online.js';
import { rescanAction } from './rescan.js';
import { restoreAction } from './restore.js';
import { scanAction } from './scan.js';
import type { ActionDef, ActionId } from './types.js';
import { unmountAction } from './unmount.js';

export const ACTIONS: readonly ActionDef[] = [
  attachAction,
  scanAction,
  rescanAction,
  unmountAction,
  flushAction,
  deleteDeviceAction,
  onlineAction,
  logoutAction,
  forgetAction,
  cleanupAction,
  restoreAction,
  // Every plan is checked for steps that need iscsid (iscsid-needed.ts), whoever planned it.
].map((a) => withIscsidCheck(a as unknown as ActionDef)) as readonly ActionDef[];

export function findAction(id: ActionId | string): ActionDef {
  const a = ACTIONS.find((x) => x.id === id);
  if (!a) throw new UserError(`unknown action ${id}`, `actions: ${ACTIONS.map((x) => x.id).join(', ')}`);
  return a;
}
