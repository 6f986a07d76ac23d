"""FREE/FALL A5: a d20 pool assigned to declared actions, harm slots, gear binding and hacking."""
