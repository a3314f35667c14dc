"""The report stage: one report object per command, every figure derived once; gates read them."""
