import { describe, expect, it } from 'vitest';
import { formatGenericTable, formatTable, summarize } from './table.js';

describe('summarize (printers.GenerateTableElementWithSummary)', () => {
  it('sorts and joins short lists', () => {
    expect(summarize(['b', 'a', 'c'])).toBe('a,b,c');
    expect(summarize([])).toBe('');
  });
  it('cuts long lists to the column width with "+ N more..."', () => {
    const list = Array.from({ length: 10 }, (_, i) => `10.10.0.${10 + i}`);
    const s = summarize(list, 50);
    // Antrea's count is of the elements left when the line first overflowed, not of those cut
    // after shortening; users' eyes know this output, so it is kept.
    expect(s).toBe('10.10.0.10,10.10.0.11,10.10.0.12 + 6 more...');
    expect(s.length).toBeLessThanOrEqual(50);
  });
});

describe('formatTable (ConstructFormattedTable)', () => {
  it('pads columns to the widest cell plus one space and shows empty cells as <NONE>', () => {
    const out = formatTable({
      header: ['NAME', 'POD-IPS', 'NODE-IPS'],
      rows: [
        ['ag-web', '10.10.0.2,10.10.1.3', '192.168.77.10'],
        ['ag-empty', '', ''],
      ],
      sortRows: true,
    });
    expect(out).toBe(
      [
        'NAME     POD-IPS             NODE-IPS     ',
        'ag-empty <NONE>              <NONE>       ',
        'ag-web   10.10.0.2,10.10.1.3 192.168.77.10',
        '',
      ].join('\n'),
    );
  });
  it('never pads a single column (ovsflows rows are long)', () => {
    expect(formatTable({ header: [''], rows: [['table=0, priority=0 actions=drop']], sortRows: false })).toBe(
      '\ntable=0, priority=0 actions=drop\n',
    );
  });
  it('keeps row order when the table asks for it', () => {
    const out = formatTable({
      header: ['A', 'B'],
      rows: [
        ['z', '1'],
        ['a', '2'],
      ],
      sortRows: false,
    });
    expect(out.split('\n')[1]?.startsWith('z')).toBe(true);
  });
});

describe('formatGenericTable (TableOutput)', () => {
  it('prints one column per field, at least 15 wide', () => {
    expect(formatGenericTable({ level: 2 })).toBe(`${'level'.padEnd(15)}\n${'2'.padEnd(15)}\n`);
  });
});
