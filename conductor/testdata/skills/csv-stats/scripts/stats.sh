#!/bin/sh
# Prints the rows and columns of a CSV file (no quoted commas).
rows=$(wc -l < "$1" | tr -d ' ')
cols=$(head -n 1 "$1" | awk -F, '{print NF}')
echo "$1: $rows rows, $cols columns"
