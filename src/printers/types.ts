// The printer shape is the registry's (every type declares one); printers here implement it.
export type { TableColumnDefinition, TablePrinter as Printer } from "../registry/table-printer.js";
