// Webhooks (SPEC 2.19): verifyWebhook against signatures made here with node:crypto from the
// SPEC's recipe; and, against a real server when TEAHOUSE_URL names one, a hook registered,
// listed, its `your_turn` received by a real HTTP server on loopback and checked, its delivery
// in the log, and the hook deleted.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { test } from "node:test";

import { ServerError, TeahouseClient, verifyWebhook, WebhookSignatureError } from "../teahouse.js";

const URL_ = process.env.TEAHOUSE_URL;
const SECRET = "whsec_Vq0mW3xq8Jb1Yt6nGd2sKc9uLr5aHe7fPz4iTo0yRkM";

function signed(secret, stamp, body) {
  return `v1=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${stamp}.${body}`).digest("hex")}`;
}

test("verifyWebhook accepts the SPEC's signature and refuses others", async () => {
  const body = JSON.stringify({ id: "dlv_x", event: "your_turn", match: "m", seq: 1 });
  const stamp = "1780000000";
  const headers = { "Teahouse-Timestamp": stamp, "teahouse-signature": signed(SECRET, stamp, body) };
  const now = 1780000010;
  assert.deepEqual(await verifyWebhook(SECRET, headers, body, { now }), JSON.parse(body));
  assert.deepEqual(await verifyWebhook(SECRET, new Headers(headers), new TextEncoder().encode(body), { now }),
    JSON.parse(body));
  const refused = (e) => e instanceof WebhookSignatureError;
  await assert.rejects(verifyWebhook(SECRET, headers, body + " ", { now }), refused);
  await assert.rejects(verifyWebhook("whsec_other", headers, body, { now }), refused);
  await assert.rejects(verifyWebhook(SECRET, headers, body, { now: now + 3600 }), refused);
  await assert.rejects(verifyWebhook(SECRET, { "Teahouse-Timestamp": stamp }, body, { now }), refused);
  await assert.rejects(verifyWebhook(SECRET, { ...headers, "Teahouse-Timestamp": "1780000001" }, body,
    { now }), refused);
});

function receiver() {
  const got = [];
  let wake = () => {};
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end("ok");
      wake();
    });
  });
  return {
    got, server,
    listen: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port))),
    next: (n) => new Promise((resolve) => {
      const check = () => (got.length >= n ? resolve(got) : (wake = check));
      check();
    }),
  };
}

const skip = !URL_ ? "set TEAHOUSE_URL to a running server" : false;

test("a JS player registers a webhook and receives its turn, signed", { skip, timeout: 60000 }, async () => {
  const client = new TeahouseClient(URL_, { encoding: "json" });
  const rx = receiver();
  const port = await rx.listen();
  try {
    const me = await client.createPlayer("Hook");
    await assert.rejects(client.createWebhook(me.key, "http://example.org/hook"),
      (e) => e instanceof ServerError && e.code === "bad_webhook_url");
    await assert.rejects(client.createWebhook(me.key, `http://127.0.0.1:${port}/hook`, { events: ["nope"] }),
      (e) => e instanceof ServerError && e.code === "unknown_webhook_event");
    const hook = await client.createWebhook(me.key, `http://127.0.0.1:${port}/hook`, { events: ["your_turn"] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await client.webhooks(me.key), [{ id: hook.id, url: hook.url, events: ["your_turn"], created: hook.created }]);

    const m = await client.createMatch("pixies", 2, { options: { first_player: 0 }, bots: [{ seat: 1, strength: 0 }] });
    await client.takeSeat(m.match, { playerKey: me.key });
    const [first] = await rx.next(1);
    const body = first.body.toString("utf8");
    assert.equal(first.headers["teahouse-signature"], signed(hook.secret, first.headers["teahouse-timestamp"], body));
    const payload = await verifyWebhook(hook.secret, first.headers, first.body);
    assert.equal(payload.event, "your_turn");
    assert.equal(payload.match, m.match);
    assert.equal(payload.seq, 1);
    assert.equal(first.headers["teahouse-delivery"], payload.id);

    let log;
    for (let i = 0; i < 100; i++) {
      log = await client.webhookDeliveries(me.key);
      if (log.deliveries[0]?.status === "delivered") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(log.total, 1);
    assert.equal(log.deliveries[0].id, payload.id);
    assert.equal(log.deliveries[0].attempts, 1);
    await client.deleteWebhook(me.key, hook.id);
    assert.deepEqual(await client.webhooks(me.key), []);
    await assert.rejects(client.deleteWebhook(me.key, hook.id), (e) => e instanceof ServerError && e.code === "unknown_webhook");
  } finally {
    rx.server.close();
  }
});
