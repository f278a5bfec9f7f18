// Aligned columns as Go's text/tabwriter lays them out (minimum width 8, padding 1, spaces, no
// flags), which upstream's debug endpoints write through: a cell is text ending in a tab, cells
// of one column in consecutive lines form a block padded to the block's widest cell.
const minWidth = 8;
const padding = 1;

export function tabwrite(text: string): string {
  const lines = text.split("\n").map((l) => l.split("\t"));
  const width = (s: string) => [...s].length;
  const widths: number[] = [];
  let out = "";

  const writeLines = (line0: number, line1: number) => {
    for (let i = line0; i < line1; i++) {
      const cells = lines[i]!;
      cells.forEach((c, j) => {
        out += c;
        if (j < widths.length) out += " ".repeat(widths[j]! - width(c));
      });
      if (i + 1 < lines.length) out += "\n";
    }
  };

  const format = (line0: number, line1: number) => {
    const column = widths.length;
    for (let line = line0; line < line1; line++) {
      // The last cell of a line ends in no tab: it is not part of a column.
      if (column >= lines[line]!.length - 1) continue;
      // A block of this column starts here: lines above it are written with the widths so far.
      writeLines(line0, line);
      line0 = line;
      let w = minWidth;
      for (; line < line1; line++) {
        const cells = lines[line]!;
        if (column >= cells.length - 1) break;
        w = Math.max(w, width(cells[column]!) + padding);
      }
      widths.push(w);
      format(line0, line);
      widths.pop();
      line0 = line;
    }
    writeLines(line0, line1);
  };

  format(0, lines.length);
  return out;
}
