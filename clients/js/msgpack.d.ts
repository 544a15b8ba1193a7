// Types of msgpack.js: a small MessagePack codec for the protocol's plain data.

/** Malformed MessagePack input (or a value the protocol cannot carry). */
export class MsgpackError extends Error {
  constructor(message: string);
}

/** One value to MessagePack bytes (the smallest format for every value, as the server's). */
export function encode(value: unknown): Uint8Array;

/** MessagePack bytes to one value; throws MsgpackError (trailing bytes too). */
export function decode(input: Uint8Array | ArrayBuffer): unknown;

/** MessagePack bytes holding values one after another (a v2 compact frame) to their list. */
export function decodeAll(input: Uint8Array | ArrayBuffer): unknown[];
