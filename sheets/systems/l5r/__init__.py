"""L5R Roll & Keep: traits, rings and skills rolled as XkY with exploding tens, wounds and Void."""
