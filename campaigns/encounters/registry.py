from . import triad

COMBAT = {rules.key: rules for rules in (triad.combat,)}
