"""Reading the page: its lines and cells, their layout (captions, comb boxes, fill-in blanks, the
questions it prints), normalised labels and the field vocabulary, and the kinds of values text
holds (dates, amounts, names, parties, ticked choices). Imports nothing else of `fields/`."""
