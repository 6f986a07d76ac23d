from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triad", "0002_play_state"),
    ]

    operations = [
        migrations.AddField(
            model_name="triadsheet",
            name="grappled",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="restrained",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="prone",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="disarmed",
            field=models.BooleanField(default=False),
        ),
    ]
