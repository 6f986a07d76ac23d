from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triad", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="triadsheet",
            name="dead",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="hard_to_kill_used",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="hard_to_confuse_used",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="hard_to_unnerve_used",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="triadsheet",
            name="rage_advantage",
            field=models.BooleanField(default=False),
        ),
    ]
