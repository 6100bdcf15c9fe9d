// The bare work of one `gw order query X --channel wechat`, without gw: what start-up is measured
// against beside `node -e 0` (bench/README.md). Node's built-ins taken as gw's bundle takes them
// (a require, not an import: an import builds their ES facades), the profile's two keys read and
// parsed, the signed form POST over node:http, the answer's signature checked, the history
// opened (node:sqlite) and asked once, the paid time read in the gateway's zone (Intl), one line
// written. Run by bench/run.mjs with gw's environment (GW_PRIVATE_KEY, GW_BASE_URL, ...) and the
// order's number as its argument.
const {readFileSync} = process.getBuiltinModule('node:fs')
const {createPrivateKey, createPublicKey, randomBytes, sign, verify} = process.getBuiltinModule('node:crypto')
const {request} = process.getBuiltinModule('node:http')
const {join} = process.getBuiltinModule('node:path')
const {DatabaseSync} = process.getBuiltinModule('node:sqlite')

const env = process.env
const key = createPrivateKey(readFileSync(env.GW_PRIVATE_KEY))
const gatewayKey = createPublicKey(readFileSync(env.GW_GATEWAY_PUBLIC_KEY))
const history = new DatabaseSync(join(env.GW_CONFIG_DIR, 'bare-query.db'))
history.exec('CREATE TABLE IF NOT EXISTS orders (mch_order_no TEXT PRIMARY KEY, channel TEXT)')
history.prepare('SELECT channel FROM orders WHERE mch_order_no = ?').get(process.argv[2])

/** The signed string, as the API document signs (keys in order, no separators; gw's signing.ts in full). */
const canonical = (params) =>
  Object.keys(params)
    .filter((name) => name !== 'sign' && params[name] != null)
    .sort()
    .map((name) => `${name}=${typeof params[name] === 'object' ? JSON.stringify(params[name]) : params[name]}`)
    .join('')
const params = {
  appid: env.GW_APPID,
  channel: 'wechat',
  mch_order_no: process.argv[2],
  nonce_str: randomBytes(16).toString('hex'),
  time_stamp: new Date().toISOString().replace(/\D/g, '').slice(0, 14),
}
const body = new URLSearchParams({...params, sign: sign('md5', Buffer.from(canonical(params)), key).toString('hex')})
const sent = request(`${env.GW_BASE_URL}/order_query`, {
  method: 'POST',
  headers: {'content-type': 'application/x-www-form-urlencoded'},
})
sent.on('response', (answer) => {
  let text = ''
  answer.setEncoding('utf8')
  answer.on('data', (chunk) => (text += chunk))
  answer.on('end', () => {
    const envelope = JSON.parse(text)
    const result = envelope.data
    const verified = verify('md5', Buffer.from(canonical(result)), gatewayKey, Buffer.from(envelope.sign, 'hex'))
    const clock = new Intl.DateTimeFormat('en-US', {
      timeZone: env.GW_GATEWAY_ZONE || 'Asia/Bangkok',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
    clock.formatToParts(Date.now())
    process.stdout.write(`${result.mch_order_no}: ${result.result} (answer ${verified ? '' : 'not '}verified)\n`)
    if (envelope.code !== 0) process.exitCode = 1
  })
})
sent.end(body.toString())
