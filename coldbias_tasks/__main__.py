from coldbias_tasks.app.cli import main

raise SystemExit(main())
