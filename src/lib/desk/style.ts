/**
 * The desk's one stylesheet, served by the desk itself at /desk.css (its Content-Security-Policy
 * allows styles from the page's own origin only, and no inline style). Readable from 320 px (a
 * phone) to 1440 px: one column, tables turning into labelled rows on narrow screens; focus always
 * visible; colours with a contrast of 4.5:1 or more.
 */
export const DESK_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans Thai", sans-serif;
  font-size: 100%; line-height: 1.5; color: #1b1b1b; background: #fff; -webkit-text-size-adjust: 100%; }
body { margin: 0; }
a { color: #0b4fa8; text-underline-offset: 0.15em; }
a:hover { color: #07316a; }
:focus-visible { outline: 3px solid #0b4fa8; outline-offset: 2px; }
.skip { position: absolute; left: 0.5rem; top: -3rem; background: #fff; padding: 0.5rem 0.75rem; z-index: 2; }
.skip:focus { top: 0.5rem; }
.banner { padding: 0.5rem 1rem; font-weight: 600; }
.banner.live { background: #a4000f; color: #fff; }
.banner.test { background: #eef1f5; color: #2e3440; font-weight: 500; }
header.top { border-bottom: 1px solid #d5dae1; }
.bar { max-width: 72rem; margin: 0 auto; padding: 0.5rem 1rem; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem;
  align-items: baseline; }
.bar .name { font-weight: 700; margin-right: auto; color: #1b1b1b; text-decoration: none; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 0.15em; }
.profile { margin: 0; color: #4a5260; font-size: 0.875rem; width: 100%; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.75rem; }
p { margin: 0 0 0.75rem; }
.number { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.help { color: #4a5260; font-size: 0.9rem; margin: 0.25rem 0 0.5rem; }
label { display: block; font-weight: 600; }
input, select, button { font: inherit; }
input[type="text"], input[type="search"], select { width: 100%; max-width: 32rem; padding: 0.5rem 0.6rem;
  border: 1px solid #6b7380; border-radius: 4px; background: #fff; color: #1b1b1b; min-height: 2.75rem; }
.find-row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: stretch; }
.find-row input { flex: 1 1 14rem; }
button, .button { display: inline-block; padding: 0.55rem 1.1rem; min-height: 2.75rem; border-radius: 4px;
  border: 1px solid #0b4fa8; background: #0b4fa8; color: #fff; font-weight: 600; cursor: pointer;
  text-decoration: none; }
button:hover, .button:hover { background: #07316a; color: #fff; }
button.secondary, .button.secondary { background: #fff; color: #0b4fa8; }
button.danger { background: #a4000f; border-color: #a4000f; }
.field { margin: 0 0 1rem; }
.check label { display: inline; }
.check input { width: 1.25rem; height: 1.25rem; vertical-align: middle; }
.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.75rem 1rem;
  align-items: end; margin: 0 0 1.25rem; }
.filters .field { margin: 0; }
.problem { border-left: 4px solid #a4000f; background: #fdf0f1; padding: 0.75rem 1rem; margin: 0 0 1rem; }
.notice { border-left: 4px solid #8a5a00; background: #fff7e6; padding: 0.75rem 1rem; margin: 0 0 1rem; }
.outcome { border-left: 6px solid; padding: 0.75rem 1rem; margin: 0 0 1rem; }
.outcome.refunded { border-color: #1e7a34; background: #eef8f0; }
.outcome.not_refunded { border-color: #a4000f; background: #fdf0f1; }
.outcome.not_known, .outcome.ask_again { border-color: #8a5a00; background: #fff7e6; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; color: #2e3440; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.money { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 0 0 0.75rem; padding: 0; list-style: none; }
.money li { border: 1px solid #d5dae1; border-radius: 6px; padding: 0.5rem 0.9rem; min-width: 9rem; }
.money .label { display: block; font-size: 0.85rem; color: #4a5260; }
.money .value { font-size: 1.25rem; font-weight: 700; }
ol.story { list-style: none; margin: 0; padding: 0; border-left: 3px solid #d5dae1; }
ol.story li { position: relative; padding: 0.35rem 0 0.6rem 1rem; overflow-wrap: anywhere; }
ol.story time { display: block; font-size: 0.85rem; color: #4a5260; }
ol.story .kind { font-weight: 700; margin-right: 0.4rem; }
.qr svg { width: 12rem; height: 12rem; max-width: 100%; border: 1px solid #d5dae1; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
/* A table's caption names it for screen readers; the heading above it says the same to the eye. */
caption { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.table-wrap { position: relative; }
th, td { text-align: left; padding: 0.45rem 0.6rem; border-bottom: 1px solid #d5dae1; vertical-align: top; }
th { background: #f4f6f8; font-weight: 600; white-space: nowrap; }
td.amount, th.amount { text-align: right; white-space: nowrap; }
.pages { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; margin: 1rem 0; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin: 1rem 0; }
@media (max-width: 40rem) {
  h1 { font-size: 1.35rem; }
  dl.facts { grid-template-columns: 1fr; gap: 0 0; }
  dl.facts dd { margin-bottom: 0.5rem; }
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.rows tr { display: block; border: 1px solid #d5dae1; border-radius: 6px; margin: 0 0 0.75rem; padding: 0.25rem 0; }
  table.rows td { display: grid; grid-template-columns: 7rem 1fr; gap: 0.5rem; border: 0; padding: 0.2rem 0.75rem; }
  table.rows td::before { content: attr(data-label); font-weight: 600; color: #2e3440; }
  td.amount { text-align: left; }
}
`
