/**
 * Background work yields the CPU to the request path. On AWS the notifier and the other workers run
 * on Lambda instances of their own; locally they share the machine with the gateway's thread and
 * DynamoDB Local, so the background thread and the mailbox process run at a lower priority (nice
 * 10): when the cores are contended, a request goes first, and e-mail waits a little.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's priority. Linux gives every thread a nice value of its own
 * (`/proc/thread-self` names its id); elsewhere a thread cannot be lowered alone, and this does nothing.
 */
export function lowerThisThreadsPriority(): boolean {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return false;
  }
  if (!Number.isInteger(threadId) || threadId <= 0) return false;
  try {
    setPriority(threadId, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}

/** Lowers a child process's priority (every OS Node runs on); false if it is gone or not ours to change. */
export function lowerProcessPriority(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    setPriority(pid, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
