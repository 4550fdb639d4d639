def test_home_page_renders(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Champollion Review" in response.content
