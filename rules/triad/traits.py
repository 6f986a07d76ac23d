"""The seed's trait list, which traits give advantage, and looking one up by name."""

from __future__ import annotations

from dataclasses import dataclass

from rules.triad.vocabulary import BODY, MIND, SPIRIT, TriadError

# ---------------------------------------------------------------------------
# Traits
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Trait:
    """A trait from the list: ``adv`` traits give advantage (and win ties) on related tasks."""

    name: str
    summary: str
    adv: bool
    #: The ability a related task usually rolls against; None when the trait bends a rule instead.
    ability: str | None


def _t(name: str, adv: bool, ability: str | None, summary: str) -> Trait:
    return Trait(name=name, summary=summary, adv=adv, ability=ability)


TRAITS: tuple[Trait, ...] = (
    _t("Administration", False, SPIRIT,
       "Knows how to work officials and bureaucracies, public or corporate, and how to grease palms."),
    _t("Alluring", True, SPIRIT,
       "Striking looks and manner: draws admirers, keeps friends warm, sticks in strangers' minds."),
    _t("Antiquarian", True, MIND,
       "Tracks down rare old books, forgotten lore and the writings of little-known scholars."),
    _t("Artist", True, SPIRIT, "Makes paintings, sculpture and other fine artwork."),
    _t("Awareness", True, MIND,
       "Sharp senses and sharp instincts: notices things, reads people, feels what they feel."),
    _t("Backstabber", True, BODY,
       "Strikes hard from hiding or ambush when the target does not know where they are."),
    _t("Berserker Rage", False, BODY,
       "Battle frenzy: once a turn shift 1 point from Mind or Spirit into Body (up to its "
       "maximum) and gain advantage on the next Body task."),
    _t("Brawling/Martial Artist", True, BODY,
       "Fights well with bare hands: strikes, throws, holds and wrestling."),
    _t("Celebrity", True, SPIRIT, "Famous for past deeds; people know the name and the face."),
    _t("Charm", True, SPIRIT, "Talks people round, lies convincingly and performs well."),
    _t("Clergy", True, MIND,
       "Knows a faith's teachings, rituals, hierarchy and holy writings."),
    _t("Cover Identities", False, None,
       "Holds papers and a full backstory for several false names, each with friends who "
       "never learn the truth; handy for shady work done unrecognised."),
    _t("Criminal", True, SPIRIT,
       "Has contacts in the underworld and a file with the police."),
    _t("Danger Sense", False, None,
       "Feels trouble coming; rolls initiative with advantage."),
    _t("Deadly", False, None,
       "A successful attack deals 3 extra points of damage, 6 on a critical."),
    _t("Detective", True, MIND,
       "Reads clues, spots fakes, and knows criminal law and how the police work."),
    _t("Dilettante", True, MIND,
       "Knows fine art, luxury goods, fashionable artists and what is in vogue."),
    _t("Eidetic Memory", False, MIND,
       "Recalls what was seen or read, dates and small details, with near-perfect accuracy."),
    _t("Engineer", True, MIND,
       "Designs machines and buildings; understands materials and power systems."),
    _t("Escape Artist", True, BODY,
       "Wriggles free of cuffs, nets, straitjackets and any other bonds."),
    _t("Espionage", True, MIND,
       "Handles codes and ciphers, surveillance gear, signals and photo intelligence, and "
       "mind-bending interrogation."),
    _t("Farmer", True, BODY,
       "Grows crops, raises livestock and gets produce sold."),
    _t("Fast (Extreme)", False, None, "Each move covers three times the normal distance."),
    _t("Fast", False, None, "Each move covers twice the normal distance."),
    _t("Finance", True, MIND,
       "Invests, sizes up companies and budgets, and moves money between accounts."),
    _t("Fluent With Millions", False, MIND,
       "Speaks dozens of languages and can make themself understood anywhere; no help with "
       "codes, ciphers or dead tongues."),
    _t("Guns", True, BODY, "A good shot with pistols, rifles and similar firearms."),
    _t("Hacker", True, MIND,
       "Breaks into secured networks, copies or changes data, and sabotages electronics."),
    _t("Heavy Weapons", True, BODY,
       "Operates vehicle-mounted guns, field artillery and squad support weapons."),
    _t("Honorable", True, SPIRIT,
       "Known for keeping their word, dealing fairly and doing the right thing."),
    _t("Influential", True, SPIRIT,
       "Knows people at every level of society and can call in news and favours from odd quarters."),
    _t("Insane", True, SPIRIT,
       "Known to be wild and unpredictable, acting without regard for anyone else."),
    _t("Journalist", True, MIND,
       "Writes articles and broadcast scripts, interviews sources, researches, finds experts."),
    _t("Magical", False, SPIRIT,
       "Channels supernatural power: casts spells and sways otherworldly beings."),
    _t("Medical Expert", True, MIND,
       "Diagnoses and treats, does forensic work, knows drugs and biology research."),
    _t("Military Tactics", True, MIND,
       "Handles camouflage, maps, demolitions and electronic countermeasures."),
    _t("Musician", True, SPIRIT,
       "Sings, plays instruments, writes songs and performs for a crowd."),
    _t("Natural Sciences", True, MIND,
       "Deep knowledge of biology, chemistry, physics, geology, astronomy and the like."),
    _t("Occult", True, MIND,
       "Knows the hidden truth about cults, secret orders, rituals and unnatural beings."),
    _t("Physique", True, BODY, "Very strong, tough and enduring."),
    _t("Psionics", False, MIND,
       "Wields psychic powers: telepathy, telekinesis and extrasensory perception."),
    _t("Social Sciences", True, MIND,
       "Deep knowledge of psychology, anthropology, sociology, economics and politics."),
    _t("Starship Ops", True, MIND,
       "Pilots small and large spacecraft, plots faster-than-light jumps, runs the sensors."),
    _t("Stealth", True, BODY, "Moves and acts without being seen or heard."),
    _t("Streetwise", True, SPIRIT,
       "Gets on with locals, gambles, and picks up news from informal contacts."),
    _t("Survival", True, BODY,
       "Practical know-how of the wild: weather, animals and plants."),
    _t("Swiftness", True, BODY, "Quick on their feet, with fast reflexes and nimble hands."),
    _t("Swords", True, BODY,
       "Fights well with long blades: cuts, thrusts and parries."),
    _t("Tactics", True, MIND,
       "Leads troops: coordinates squads or fleets against an enemy force."),
    _t("Thief", True, BODY,
       "Slips bonds, forges papers, opens locks and safes, picks pockets, beats alarms."),
    _t("Trade", True, SPIRIT,
       "Values cargo, strikes business deals and closes sales."),
    _t("Vehicle Ops", True, BODY,
       "Drives and pilots cars, speeders, boats, aircraft and hovercraft."),
    _t("Vengeful", True, SPIRIT, "Known to be merciless to enemies; never forgives."),
    _t("War Hero", True, SPIRIT,
       "Decorated veteran whose record other soldiers recognise at once."),
    _t("Willpower", True, SPIRIT, "Strong-minded, focused and hard to turn from a purpose."),
    _t("Stunning Strikes", True, BODY,
       "Lands blows that stun instead of harm: the target suffers disadvantage for a turn."),
    _t("Secret Access", True, SPIRIT,
       "Through loyalty or blackmail, gets well-placed people to share what they hide."),
    _t("Hideous", True, SPIRIT,
       "Frightful looks and unsettling habits; good for intimidation and terror."),
    _t("Hard To Kill", False, BODY,
       "The first time Body drops to 0, it bounces back to half its maximum; ready again "
       "once Body is fully restored."),
    _t("Hard To Confuse", False, MIND,
       "The first time Mind drops to 0, it bounces back to half its maximum; ready again "
       "once Mind is fully restored."),
    _t("Hard To Unnerve", False, SPIRIT,
       "The first time Spirit drops to 0, it bounces back to half its maximum; ready again "
       "once Spirit is fully restored."),
    _t("Relentless", False, BODY,
       "Each time an attack drops a foe to 0, make another attack at a new target in reach; "
       "keep going until a target stays standing or none are left."),
)

TRAITS_BY_NAME: dict[str, Trait] = {t.name: t for t in TRAITS}
ADV_TRAITS: tuple[str, ...] = tuple(t.name for t in TRAITS if t.adv)
#: The seven common advantage traits the rules single out.
COMMON_ADV_TRAITS = ("Awareness", "Charm", "Physique", "Stealth", "Survival", "Swiftness",
                     "Willpower")


def find_trait(name: str) -> Trait:
    """Look a trait up by name, ignoring case, spacing and a trailing "(Adv.)"."""
    if not isinstance(name, str):
        raise TriadError(f"{name!r} is not a trait name.", field="traits")
    key = " ".join(name.replace("(Adv.)", "").split()).lower()
    for trait in TRAITS:
        if trait.name.lower() == key:
            return trait
    raise TriadError(f"{name.strip()!r} is not on the Triad trait list.", field="traits")
