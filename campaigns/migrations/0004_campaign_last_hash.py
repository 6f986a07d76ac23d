from django.db import migrations, models
from django.db.models.functions import Coalesce


def fill_last_hash(apps, schema_editor):
    """Give each campaign the hash of its newest entry, the one its next entry follows."""
    campaign = apps.get_model("campaigns", "Campaign")
    feed_entry = apps.get_model("campaigns", "FeedEntry")
    newest = feed_entry.objects.filter(campaign_id=models.OuterRef("pk")).order_by("-seq").values("hash")[:1]
    campaign.objects.update(last_hash=Coalesce(models.Subquery(newest), models.Value("")))


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0003_feedentry_hash_chain"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="last_hash",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.RunPython(fill_last_hash, migrations.RunPython.noop),
    ]
