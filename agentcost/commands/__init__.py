"""The commands as a library: several scenarios, models or revisions -> one report object each."""
