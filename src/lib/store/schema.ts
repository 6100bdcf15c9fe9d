/**
 * The history's tables, as migrations: `MIGRATIONS[i]` takes the database from version i to
 * i + 1 (PRAGMA user_version), each once, in one transaction. A database of a later version than
 * this gw knows is refused (io/database.ts): a newer gw wrote it.
 */
export const MIGRATIONS = [
  `CREATE TABLE orders (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, gw_order_no TEXT, channel TEXT NOT NULL,
     total_fee INTEGER NOT NULL, fee_type TEXT NOT NULL,
     at TEXT NOT NULL, at_ms INTEGER NOT NULL, state TEXT, state_at TEXT,
     UNIQUE (appid, mch_order_no));
   CREATE INDEX orders_by_gateway_number ON orders (appid, gw_order_no) WHERE gw_order_no IS NOT NULL;
   CREATE INDEX orders_by_time ON orders (appid, at_ms);
   CREATE TABLE refunds (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, gw_order_no TEXT, channel TEXT,
     mch_refund_no TEXT NOT NULL, refund_fee INTEGER NOT NULL, fee_type TEXT, status TEXT,
     gw_refund_no TEXT, source TEXT, at TEXT NOT NULL, at_ms INTEGER NOT NULL,
     UNIQUE (appid, mch_order_no, mch_refund_no));
   CREATE INDEX refunds_by_number ON refunds (appid, mch_refund_no);
   CREATE INDEX refunds_by_time ON refunds (appid, at_ms);
   CREATE TABLE refund_claims (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL,
     PRIMARY KEY (appid, mch_order_no));
   CREATE TABLE imports (file TEXT NOT NULL, lines INTEGER NOT NULL, skipped TEXT NOT NULL, at TEXT NOT NULL);`,
  // An order's payer, and what happened to each order, for its story (gw order timeline).
  `ALTER TABLE orders ADD COLUMN openid TEXT;
   CREATE INDEX orders_by_payer ON orders (appid, openid) WHERE openid IS NOT NULL;
   CREATE TABLE events (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL, at_ms INTEGER NOT NULL,
     detail TEXT NOT NULL);
   CREATE INDEX events_of_order ON events (appid, mch_order_no, at_ms);`,
  // Every record knows its gateway (appid, base URL, gateway key), its first key. Records of earlier
  // versions knew only their appid: they go to that appid's gateway of unknown base URL and key
  // (both ''), until one gateway of the appid is certain (store.ts: adopt). An event has a key of
  // its own (what it says, of which order, when), so that merging the same records twice changes nothing.
  // An order keeps the channel's number of it (wallet receipts show it) once a query or notification
  // showed it; a refund keeps the total of its order (--amount 150.50 finds a 150.50 order's refunds),
  // filled from the orders where the order is known.
  `CREATE TABLE gateways (
     id INTEGER PRIMARY KEY, appid TEXT NOT NULL, base_url TEXT NOT NULL, key TEXT NOT NULL, since TEXT NOT NULL,
     UNIQUE (appid, base_url, key));
   INSERT INTO gateways (appid, base_url, key, since)
     SELECT appid, '', '', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (
       SELECT appid FROM orders UNION SELECT appid FROM refunds UNION SELECT appid FROM events
       UNION SELECT appid FROM refund_claims);
   CREATE TABLE adoptions (gateway INTEGER NOT NULL REFERENCES gateways (id), orders INTEGER NOT NULL,
     refunds INTEGER NOT NULL, events INTEGER NOT NULL, why TEXT NOT NULL, at TEXT NOT NULL);

   CREATE TABLE orders_ (
     gateway INTEGER NOT NULL REFERENCES gateways (id), mch_order_no TEXT NOT NULL, gw_order_no TEXT,
     channel TEXT NOT NULL, total_fee INTEGER NOT NULL, fee_type TEXT NOT NULL,
     at TEXT NOT NULL, at_ms INTEGER NOT NULL, state TEXT, state_at TEXT, openid TEXT, channel_order_no TEXT,
     UNIQUE (gateway, mch_order_no));
   INSERT INTO orders_ SELECT g.id, o.mch_order_no, o.gw_order_no, o.channel, o.total_fee, o.fee_type, o.at,
       o.at_ms, o.state, o.state_at, o.openid, NULL
     FROM orders o JOIN gateways g ON g.appid = o.appid AND g.base_url = '' ORDER BY o.rowid;
   DROP TABLE orders;
   ALTER TABLE orders_ RENAME TO orders;
   CREATE INDEX orders_by_gateway_number ON orders (gateway, gw_order_no) WHERE gw_order_no IS NOT NULL;
   CREATE INDEX orders_by_time ON orders (gateway, at_ms);
   CREATE INDEX orders_by_payer ON orders (gateway, openid) WHERE openid IS NOT NULL;
   CREATE INDEX orders_by_channel_number ON orders (gateway, channel_order_no) WHERE channel_order_no IS NOT NULL;

   CREATE TABLE refunds_ (
     gateway INTEGER NOT NULL REFERENCES gateways (id), mch_order_no TEXT NOT NULL, gw_order_no TEXT, channel TEXT,
     mch_refund_no TEXT NOT NULL, refund_fee INTEGER NOT NULL, fee_type TEXT, status TEXT,
     gw_refund_no TEXT, source TEXT, at TEXT NOT NULL, at_ms INTEGER NOT NULL, total_fee INTEGER,
     UNIQUE (gateway, mch_order_no, mch_refund_no));
   INSERT INTO refunds_ SELECT g.id, r.mch_order_no, r.gw_order_no, r.channel, r.mch_refund_no, r.refund_fee,
       r.fee_type, r.status, r.gw_refund_no, r.source, r.at, r.at_ms,
       (SELECT o.total_fee FROM orders o WHERE o.gateway = g.id AND o.mch_order_no = r.mch_order_no)
     FROM refunds r JOIN gateways g ON g.appid = r.appid AND g.base_url = '' ORDER BY r.rowid;
   DROP TABLE refunds;
   ALTER TABLE refunds_ RENAME TO refunds;
   CREATE INDEX refunds_by_number ON refunds (gateway, mch_refund_no);
   CREATE INDEX refunds_by_time ON refunds (gateway, at_ms);

   CREATE TABLE events_ (
     gateway INTEGER NOT NULL REFERENCES gateways (id), mch_order_no TEXT NOT NULL, kind TEXT NOT NULL,
     at TEXT NOT NULL, at_ms INTEGER NOT NULL, detail TEXT NOT NULL,
     UNIQUE (gateway, mch_order_no, kind, at, detail));
   INSERT OR IGNORE INTO events_ SELECT g.id, e.mch_order_no, e.kind, e.at, e.at_ms, e.detail
     FROM events e JOIN gateways g ON g.appid = e.appid AND g.base_url = '' ORDER BY e.rowid;
   DROP TABLE events;
   ALTER TABLE events_ RENAME TO events;
   CREATE INDEX events_of_order ON events (gateway, mch_order_no, at_ms);

   DROP TABLE refund_claims;
   CREATE TABLE refund_claims (
     gateway INTEGER NOT NULL REFERENCES gateways (id), mch_order_no TEXT NOT NULL, pid INTEGER NOT NULL,
     host TEXT NOT NULL, since TEXT NOT NULL,
     PRIMARY KEY (gateway, mch_order_no));`,
  // A claim names the lock its process holds while it lives (claims/RUN.lock, held by the system:
  // released when the process ends, however it ends); its pid, host and time are for messages only.
  // A claim of an earlier gw, which names none, was judged by its pid: it is taken over.
  `ALTER TABLE refund_claims ADD COLUMN run TEXT;`,
  // A gateway is one however its address is spelled (store/gateway.ts): a spelling met names the
  // gateway whose records it shares. Gateways an earlier gw kept apart are made one as they are met.
  `ALTER TABLE gateways ADD COLUMN same_as INTEGER REFERENCES gateways (id);`,
  // A refund found by the gateway's number of it (support pastes it from the merchant platform or a
  // receipt), as by the merchant's: an indexed question.
  `CREATE INDEX refunds_by_gateway_number ON refunds (gateway, gw_refund_no) WHERE gw_refund_no IS NOT NULL;`,
  // A refund asked by its number, the newest first: each number's index holds its time, so the
  // question is answered from it. Without, SQLite walked the time index of every refund of the
  // gateway down to the one (0.4 s of every gw order query in a history of a million records).
  `DROP INDEX refunds_by_number;
   CREATE INDEX refunds_by_number ON refunds (gateway, mch_refund_no, at_ms);
   DROP INDEX refunds_by_gateway_number;
   CREATE INDEX refunds_by_gateway_number ON refunds (gateway, gw_refund_no, at_ms) WHERE gw_refund_no IS NOT NULL;`,
]
