// Types of teahouse.js, the Teahouse JS SDK (protocol/SPEC.md). Plain data throughout: what a
// game's view holds is in docs/games/<id>.md and protocol/schemas/<id>.view.json.

/** JSON-like data as the protocol carries it (no floats in commands). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A game command: a map with a string `type` (docs/games/<id>.md). */
export interface Command {
  type: string;
  [field: string]: Json;
}

/** One patch op (SPEC 6.2). */
export interface PatchOp {
  op: "add" | "remove" | "replace";
  path: (string | number)[];
  value?: Json;
}

/** The document a MatchView holds: the audience's view and the match's status. */
export interface MatchDocument {
  view?: { [key: string]: Json };
  status?: MatchStatus;
}

export interface MatchStatus {
  phase?: string;
  to_act?: number[];
  finished?: boolean;
  result?: MatchResult | null;
  [field: string]: unknown;
}

export interface MatchResult {
  winners?: number[];
  scores?: number[];
  [field: string]: unknown;
}

/** A message from the server, v1-shaped (v2 compact frames are expanded first). */
export interface ServerMessage {
  type: string;
  match?: string;
  [field: string]: unknown;
}

export interface PresenceMessage extends ServerMessage {
  type: "presence";
  match: string;
  seats: boolean[];
  spectators: number;
  /** On the presence that ends an answer: the request's type ("join", "spectate", "resync"). */
  reply?: "join" | "spectate" | "resync";
  /** With `reply`: the request's ref. */
  ref?: string;
}

export interface FinishedMessage extends ServerMessage {
  type: "finished";
  match: string;
  seq: number;
  result: MatchResult | null;
  seed: string;
}

export interface WelcomeMessage extends ServerMessage {
  type: "welcome";
  protocol: number;
  encoding: Encoding;
  server: string;
  session: string;
  max_frame: number;
  games: string[];
}

export type Encoding = "json" | "msgpack";
export type ProtocolVersion = 1 | 2;

export const PROTOCOL_VERSION: 2;
export const SUBPROTOCOLS: { [version in ProtocolVersion]: { [encoding in Encoding]: string } };
export const SUBPROTOCOL: { [encoding in Encoding]: string };
export const CLIENT_NAME: string;
/** Error codes after which the same request may be sent again (busy, store_unavailable). */
export const RETRYABLE: Set<string>;
export const SEAT_RETRIES: number;

/** The server answered with an error (`code` is stable, `serverMessage` is for people). */
export class ServerError extends Error {
  constructor(code: string, message: string, fields?: { [field: string]: unknown });
  code: string;
  serverMessage: string;
  /** The whole error message as it came. */
  fields: { [field: string]: unknown };
  /** "Not now" rather than "no": send the same request again in a moment. */
  readonly retryable: boolean;
}

/** The rules refused a move; the log did not change. `code` is the game's own code. */
export class Rejected extends ServerError {}

/** The move was decided on a document older than the match: nothing was committed. */
export class Stale extends ServerError {
  /** The match's seq now. */
  seq: number | null;
}

/** Refused for the connection's rate or byte budget; the SDK resends by itself first. */
export class RateLimited extends ServerError {
  constructor(code: string, message: string, retryAfterMs?: number, fields?: { [field: string]: unknown });
  retryAfterMs: number;
}

/** The connection dropped before an answer came; call `conn.reconnect()` and go on. */
export class ConnectionLost extends Error {
  constructor(message?: string);
}

/** A patch that does not apply to the document held. */
export class PatchError extends Error {
  constructor(message: string);
}

/** The exception for an `error` message. */
export function serverError(e: ServerMessage): ServerError;
/** A deep copy of plain data. */
export function clone<T>(value: T): T;
/** Apply `ops` to `doc` (atomic; `doc` is left as it was); throws PatchError. */
export function applyPatch<T = MatchDocument>(doc: T, ops: PatchOp[]): T;
/** Deep equality of plain data. */
export function deepEqual(a: unknown, b: unknown): boolean;

export type ChangeReason = "view" | "patch" | "presence" | "clock" | "finished" | "lost";

/** One match as this connection's audience sees it. */
/** A sentence's message key and parameters (SPEC 3.14): a client with a catalogue entry for
 * `key` says it in its reader's language; a parameter may itself be {key, params, text}. */
export interface SaidKey {
  key: string;
  params: Record<string, unknown>;
}

export class MatchView {
  constructor(conn: Connection, match: string, seat: number | null, token: string | null);
  conn: Connection;
  match: string;
  /** The seat this connection plays, or null for a spectator. */
  seat: number | null;
  token: string | null;
  seq: number;
  doc: MatchDocument;
  presence: PresenceMessage | null;
  finished: FinishedMessage | null;
  /** The turn clock: ms since the epoch when the seats to act run out, or null. */
  deadline: number | null;
  /** A Fischer clock's time left per seat at the clock's seq (ms), or null. */
  banks: number[] | null;
  /** The latest commit's sentences (SPEC 3.14). */
  said: string[];
  /** {seq, said} of each commit seen live on this connection. */
  story: { seq: number; said: string[]; saidKeys: (SaidKey | null)[] }[];
  /** Parallel to `said`: each sentence's message key and parameters (SPEC 3.14), or null. */
  saidKeys: (SaidKey | null)[];
  resyncs: number;
  readonly view: { [key: string]: Json };
  readonly status: MatchStatus;
  readonly myTurn: boolean;
  readonly over: boolean;
  /** Call `fn(reason, view, said)` after every change; returns a function that unsubscribes. */
  onChange(fn: (reason: ChangeReason, view: MatchView, said?: string[]) => void): () => boolean;
  /** Resolve once `predicate(this)` holds; reject with ConnectionLost or after `timeout` ms. */
  waitFor(predicate: (view: MatchView) => boolean, timeout?: number): Promise<MatchView>;
}

/** The legal commands, with a short label for each (parallel to the array). */
export type LegalMoves = Command[] & { labels: string[] };

/** Anything shaped like the WHATWG WebSocket (the browser's, Node's, or the `ws` package's). */
export interface WebSocketLike {
  protocol: string;
  binaryType: string;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export interface ConnectionOptions {
  WebSocket?: WebSocketConstructor;
  encoding?: Encoding;
  version?: ProtocolVersion;
  clientName?: string;
  /** How long a request waits for its answer, in ms (30000). */
  timeout?: number;
  /** false: the server leaves the commits' sentences out of patches (SPEC 4.1). */
  said?: boolean;
  /** true: patches carry each sentence's message key and parameters too (SPEC 3.14): `MatchView.saidKeys`. */
  saidKeys?: boolean;
  /** false: moves carry no `at`, so a move is never refused as stale. */
  at?: boolean;
}

/** A WebSocket session: `await conn.open()`, then join/spectate, move, legalMoves. */
export class Connection {
  constructor(wsUrl: string, options?: ConnectionOptions);
  wsUrl: string;
  encoding: Encoding;
  version: ProtocolVersion;
  subprotocol: string;
  said: boolean;
  saidKeys: boolean;
  at: boolean;
  timeout: number;
  matches: Map<string, MatchView>;
  welcome: WelcomeMessage | null;
  errors: ServerMessage[];
  closed: { code: number; reason: string } | null;
  /** Whether this server ends its answers with a presence carrying `reply`. */
  replies: boolean;
  readonly lost: boolean;
  /** Open the socket and greet; resolves to this connection once `welcome` arrived. */
  open(): Promise<Connection>;
  close(): void;
  /** Call `fn({code, reason})` when the socket closes; returns a function that unsubscribes. */
  onClose(fn: (closed: { code: number; reason: string }) => void): () => boolean;
  /** A new socket; joins every match again from its seq and resends unanswered moves. */
  reconnect(): Promise<void>;
  /** Play the seat that `token` holds; resolves once the answer is complete. */
  join(match: string, token: string): Promise<MatchView>;
  /** Watch as a spectator; resolves once the answer is complete. */
  spectate(match: string): Promise<MatchView>;
  leave(match: string): Promise<void>;
  /** Send a move; resolves to its seq once committed. Rejects with Rejected, Stale or ServerError. */
  move(match: string, command: Command, id?: string, options?: { at?: number }): Promise<number>;
  /** The commands this seat may send now (every page), with `labels`. */
  legalMoves(match: string): Promise<LegalMoves>;
  /** Round trip in milliseconds. */
  ping(): Promise<number>;
}

export interface ClientOptions {
  WebSocket?: WebSocketConstructor;
  fetch?: typeof fetch;
  encoding?: Encoding;
  version?: ProtocolVersion;
}

export interface GameInfo {
  id: string;
  name: string;
  min_players: number;
  max_players: number;
  rules_version?: number | string;
  [field: string]: unknown;
}

/** A match's summary (SPEC 2.1). */
export interface MatchSummary {
  match: string;
  game: string;
  players: number;
  seq: number;
  state?: string;
  result?: MatchResult | null;
  seed?: string;
  [field: string]: unknown;
}

export interface SeatGrant {
  match: string;
  seat: number;
  /** The only way to play the seat; never shown again. */
  token: string;
  [field: string]: unknown;
}

export interface CreateMatchOptions {
  options?: { [option: string]: Json };
  listed?: boolean;
  turnSeconds?: number | null;
  /** Who plays a seat whose time ran out: "bot" (the default), "random" or "first". */
  absent?: "bot" | "random" | "first";
  /** Seats the server's bots play. */
  bots?: { seat: number; strength: number }[] | null;
  /** Who may watch (SPEC 2.4): "public" (the default), "link" (the answer's spectator_key) or "off". */
  spectators?: "public" | "link" | "off";
  /** How far behind the public audience is held: {commits: N} or {seconds: T}. */
  spectatorDelay?: { commits: number } | { seconds: number } | null;
  /** The time control instead of `turnSeconds` (SPEC 2.4). */
  timeControl?: TimeControl | null;
}

export interface Player {
  /** 12 URL-safe characters; `<app>:<sub>` for an app's user; `bot:strength-N` for the server's bots. */
  player: string;
  name: string;
  created: number;
}

export interface PlayerCreated extends Player {
  /** The player key: a secret shown once. */
  key: string;
}

export interface RatingChange {
  player: string;
  before: number;
  after: number;
  change: number;
  rd: number;
  provisional: boolean;
}

export interface PlayerMatch {
  match: string;
  game: string;
  state: "open" | "live" | "finished";
  seat: number;
  created: number;
  seats: { seat: number; name: string | null; player: string | null }[];
  your_turn: boolean;
  waiting_since: number | null;
  last_move: number | null;
  result?: MatchResult;
  rank?: number;
  rating?: RatingChange | null;
}

export interface PlayerMatches {
  player: string;
  total: number;
  offset: number;
  matches: PlayerMatch[];
}

export interface Leaderboard {
  game: string;
  total: number;
  offset: number;
  players: { rank: number; player: string; name: string; rating: number; rd: number; volatility: number; games: number; provisional: boolean }[];
}

export type WebhookEvent = "your_turn" | "clock_low" | "finished";

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  created: number;
}

export interface WebhookCreated extends Webhook {
  /** The signing secret, shown once. */
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  webhook: string;
  event: WebhookEvent;
  match: string;
  seq: number;
  created: number;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  delivered: number | null;
  next_attempt: number | null;
}

export interface WebhookDeliveries {
  player: string;
  total: number;
  offset: number;
  deliveries: WebhookDelivery[];
}

/** The body of a delivery (SPEC 2.19). */
export interface WebhookPayload {
  id: string;
  event: WebhookEvent;
  match: string;
  game: string;
  seat: number;
  seq: number;
  player: string;
  ts: number;
  url: string;
  deadline?: number;
  result?: { [field: string]: unknown };
  rating?: { [field: string]: unknown } | null;
}

export class WebhookSignatureError extends Error {}

/** The hex HMAC-SHA256 of `${timestamp}.${body}` keyed with the secret's UTF-8 bytes. */
export function webhookSignature(secret: string, timestamp: number | string, body: string | Uint8Array): Promise<string>;

/** The payload if the delivery's signature and timestamp check out; else WebhookSignatureError. */
export function verifyWebhook(secret: string, headers: Headers | { [name: string]: string },
  body: string | Uint8Array, options?: { toleranceS?: number; now?: number }): Promise<WebhookPayload>;

export type TimeControl =
  | { type: "per_move"; seconds: number }
  | { type: "correspondence"; days: number }
  | { type: "fischer"; bank_seconds: number; increment_seconds: number };

/** HTTP lobby calls, and `connect()` for a WebSocket session. */
export class TeahouseClient {
  /** `url`: the server's base URL; in a browser it defaults to the page's origin. */
  constructor(url?: string, options?: ClientOptions);
  url: string;
  encoding: Encoding;
  version: ProtocolVersion;
  readonly wsUrl: string;
  /** A new, unopened Connection: `await client.connect().open()`. */
  connect(options?: ConnectionOptions): Connection;
  games(): Promise<GameInfo[]>;
  createMatch(game: string, players: number, options?: CreateMatchOptions): Promise<MatchSummary>;
  /** `token`: a seat token you choose; `playerKey`: a player key or an app's signed token, the seat is then that player's; `invite`: an invite link's secret. */
  takeSeat(match: string, options?: { seat?: number | null; name?: string | null; token?: string | null; playerKey?: string | null; invite?: string | null }): Promise<SeatGrant>;
  /** Become a player; keep `key`, shown once. */
  createPlayer(name: string): Promise<PlayerCreated>;
  me(playerKey: string): Promise<Player>;
  player(player: string): Promise<Player>;
  playerMatches(player: string, options?: { offset?: number; limit?: number; playerKey?: string | null }): Promise<PlayerMatches>;
  leaderboard(game: string, options?: { offset?: number; limit?: number }): Promise<Leaderboard>;
  /** Register a webhook (SPEC 2.19); keep `secret`, shown once. */
  createWebhook(playerKey: string, url: string, options?: { events?: WebhookEvent[] | null }): Promise<WebhookCreated>;
  webhooks(playerKey: string): Promise<Webhook[]>;
  deleteWebhook(playerKey: string, webhook: string): Promise<void>;
  webhookDeliveries(playerKey: string, options?: { offset?: number; limit?: number }): Promise<WebhookDeliveries>;
  /** Ask for (or accept) the rematch of a finished match as the seat `token` holds there; a seat a player held answers with that player's `playerKey` (the token may then be null). */
  rematch(match: string, token: string | null, options?: { playerKey?: string | null }): Promise<SeatGrant>;
  declineRematch(match: string, token: string | null, options?: { playerKey?: string | null }): Promise<MatchSummary>;
  match(match: string, options?: { key?: string | null }): Promise<MatchSummary>;
  matches(state?: "open" | "live" | "finished" | null): Promise<MatchSummary[]>;
  gameReference(game: string, players?: number | null): Promise<{ game: string; players: number; reference: Json }>;
  reference(match: string): Promise<{ game: string; players: number; reference: Json }>;
  log(match: string, options?: { key?: string | null }): Promise<{ [field: string]: unknown }>;
  /** A finished match's game record (SPEC 2.13) as its JSON Lines text. */
  record(match: string): Promise<string>;
  /** A finished match's analysis (SPEC 2.14), or `{state: "queued", ...}` while it is made. */
  analysis(match: string, options?: { key?: string | null }): Promise<Analysis | AnalysisQueued>;
  replay(match: string, options?: { seq?: number | null; seat?: number | null; token?: string | null; key?: string | null }): Promise<{ [field: string]: unknown }>;
  fork(match: string, seq: number, options?: { exact?: boolean; listed?: boolean; seat?: number | null;
    name?: string | null; botStrength?: number | null }): Promise<MatchSummary & { seat?: number; token?: string }>;
}

/** A finished match's analysis (SPEC 2.14). */
export interface Analysis {
  match: string;
  seq: number;
  method: "playouts";
  playouts: number;
  /** chances[n][seat]: the seat's chance of winning right after commit n; each row sums to 1. */
  chances: number[][];
  key_moments: { seq: number; seat: number | null; swing: number; for: number }[];
}

/** The answer while an analysis is queued (HTTP 202). */
export interface AnalysisQueued {
  match: string;
  state: "queued";
  ahead: number;
  retry_after_s: number;
}
