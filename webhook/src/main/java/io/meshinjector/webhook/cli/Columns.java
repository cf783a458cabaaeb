package io.meshinjector.webhook.cli;

import java.util.List;

/** Rows printed as aligned columns, as kubectl prints them; trailing blanks trimmed. */
final class Columns {
  private Columns() {}

  static String of(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder s = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(width[i] - row[i].length() + 2));
        }
      }
      s.append(line.toString().stripTrailing()).append('\n');
    }
    return s.toString();
  }
}
