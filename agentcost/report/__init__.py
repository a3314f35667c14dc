"""Stage 5, report: one report object per command, every figure derived once; gates read them."""
