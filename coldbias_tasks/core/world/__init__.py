"""The world the tasks describe: catalogs, personas, reference lists."""
