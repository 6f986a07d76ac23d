"""Five by Five 2.5: ranked descriptors, 2d6 multiplied, six is trump, doubles tokens and XP."""
