/** The desk's one template tag: every value escaped, fragments kept, keys withheld, controls made visible. */
import {describe, expect, it} from 'vitest'

import {escaped, html} from '../../../src/lib/desk/html.js'

/** The tag under another name: so that the formatter leaves these templates as written. */
const h = html

describe('html', () => {
  it('escapes every value put into a page, in text and in attributes alike', () => {
    const hostile = `<script>alert("x")</script>' onmouseover='steal()`
    const page = html`<p title="${hostile}">${hostile}</p>`.text
    expect(page).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;steal()">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;steal()</p>',
    )
    expect(page).not.toMatch(/<script|' on/)
  })

  it('keeps fragments it built, and arrays of them; leaves out undefined, null and false', () => {
    const items = ['a&b', '<i>'].map((item) => html`<li>${item}</li>`)
    expect(h`<ul>${items}${undefined}${null}${false}${0}</ul>`.text).toBe(
      '<ul><li>a&amp;b</li><li>&lt;i&gt;</li>0</ul>',
    )
  })

  it('never shows key material, and makes the controls that reorder or hide text visible', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----'
    expect(escaped(`key ${pem}`)).toBe('key [private key withheld]')
    expect(escaped('RF1\u202eevil\u0007')).toBe('RF1\\u202Eevil\\u0007')
  })
})
