// Types of v2.js: protocol v2's compact frames expanded back into v1-shaped messages.

import type { ServerMessage } from "./teahouse.js";

/** The kinds of compact frame: h = 4 * ref + kind. */
export const PATCH: 0;
export const ACK: 1;
export const FINISHED: 2;
export const PRESENCE: 3;

/** A frame the expander cannot read (an unknown ref, a broken op stream). */
export class V2Error extends Error {
  constructor(message: string);
}

/** A v2 msgpack binary frame to a value: a map (a message) or a compact frame's elements. */
export function unpackFrame(data: Uint8Array | ArrayBuffer): unknown;

/** One per socket: remembers each match's ref and tables from its `view`. */
export class Expander {
  constructor();
  /** A decoded frame in, a v1-shaped message out; throws V2Error on a frame it cannot read. */
  expand(msg: unknown): ServerMessage;
}
