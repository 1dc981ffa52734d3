import { describe, expect, it } from 'vitest';
import { html } from './html.js';

describe('html', () => {
  it('escapes interpolated values, never the template', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<td class="a">${name}</td>`.text).toBe(
      '<td class="a">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>',
    );
  });

  it('nests html`` results and arrays as they are, and drops null, undefined and false', () => {
    const rows = ['a<', 'b'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${rows}${null}${undefined}${false}${0}</ul>`.text).toBe(
      '<ul><li>a&lt;</li><li>b</li>0</ul>',
    );
  });
});
