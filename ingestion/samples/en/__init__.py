"""English sample documents (package so the files ship in the wheel)."""
