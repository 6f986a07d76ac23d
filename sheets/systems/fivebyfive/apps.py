from sheets import registry


class FiveByFiveConfig(registry.GameSystemConfig):
    name = "sheets.systems.fivebyfive"
    label = "fivebyfive"
