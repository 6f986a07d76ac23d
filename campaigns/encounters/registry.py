from . import fivebyfive, freefall, l5r, triad

COMBAT = {rules.key: rules for rules in (triad.combat, fivebyfive.combat, l5r.combat, freefall.combat)}
